/**
 * The form fields of a multipart upload (Directus sends a file's metadata as form fields before its file part): the
 * text of each, or the JSON it holds for what reads as a JSON array or object (tags, metadata, location).
 */
import { InvalidPayloadError } from '../errors/catalogue.js';
import type { Payload } from './write-body.js';
import { isPrototypeKey } from './prototype-keys.js';

export function addFormField(fields: Payload, name: string, value: unknown): void {
  if (isPrototypeKey(name)) throw new InvalidPayloadError(`"${name}" is not a field name`);
  fields[name] = formValue(value);
}

function formValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if ((text.startsWith('[') && text.endsWith(']')) || (text.startsWith('{') && text.endsWith('}'))) {
    try {
      return JSON.parse(text);
    } catch {
      return value;
    }
  }
  return value;
}

/** How many files an upload sent, against what the route takes. */
export function checkFileCount(count: number, most: number): void {
  if (count === 0) throw new InvalidPayloadError('No file was sent');
  if (count > most) throw new InvalidPayloadError(`Only ${most} file can be sent here`);
}
