/**
 * The form fields of a multipart upload (Directus sends a file's metadata as form fields before its file part): the
 * text of each, or for a JSON field (tags, metadata) the JSON its text holds.
 */
import { Type } from '@sinclair/typebox';
import { InvalidPayloadError } from '../errors/catalogue.js';
import { checkBody, compileSchema } from './body-check.js';
import type { Payload } from './write-body.js';
import { isPrototypeKey } from './prototype-keys.js';

export function addFormField(fields: Payload, name: string, value: unknown, json = false): void {
  if (isPrototypeKey(name)) throw new InvalidPayloadError(`"${name}" is not a field name`);
  fields[name] = json ? formValue(value) : value;
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

/** POST /files/import: the URL to fetch and the row's fields (Directus's `{url, data}`). */
export const ImportFileBody = compileSchema(
  Type.Object(
    {
      url: Type.String({ minLength: 1, errorMessage: '"url" must be a URL' }),
      data: Type.Optional(Type.Object({}, { errorMessage: '"data" must be of type object' })),
    },
    { errorMessage: { required: '"url" is required' } },
  ),
);

export function parseImportFileBody(body: unknown): { url: URL; data: Payload } {
  const checked = checkBody(ImportFileBody, body) as { url: string; data?: Payload };
  let url: URL;
  try {
    url = new URL(checked.url);
  } catch {
    throw new InvalidPayloadError('"url" must be a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidPayloadError('"url" must be http or https');
  if (url.username || url.password) throw new InvalidPayloadError('"url" may not hold credentials');
  const data: Payload = Object.create(null);
  for (const [name, value] of Object.entries(checked.data ?? {})) addFormField(data, name, value);
  return { url, data };
}
