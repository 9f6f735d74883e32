/**
 * Names of objects in storage. A file's bytes are `<id><.ext>` and its image variants `<id>__<hash><.ext>`: made by
 * Strata from a uuid and a short extension, never from what a client sent, so a name cannot climb out of a folder.
 * Drivers check every key against KEY before using it, in case a row's filename_disk was edited by hand.
 */
import { InvalidPayloadError } from '../errors/catalogue.js';

export const KEY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}(?:\.[A-Za-z0-9]{1,16})?$/;

export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new InvalidPayloadError(`"${key}" is not a storage file name`);
  return key;
}

/** The extension of a download name (lower case, with its dot), or '' when it has none fit for a key. */
export function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(name);
  return match ? `.${match[1]!.toLowerCase()}` : '';
}

export function originalKey(id: string, extension: string): string {
  return checkKey(`${id}${extension}`);
}

export function variantKey(id: string, hash: string, extension: string): string {
  return checkKey(`${id}__${hash}${extension}`);
}

/** The prefix every object of file `id` (its bytes, its variants) starts with. */
export function filePrefix(id: string): string {
  return id;
}
