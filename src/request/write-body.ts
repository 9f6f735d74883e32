/**
 * Bodies of item writes (Directus docs: Items) → what the writer needs. Pure: item payloads stay as the client sent them
 * (the mutation planner checks them against the schema); only the batch envelopes are checked here.
 * Failures are 400 INVALID_PAYLOAD with Directus's reasons.
 */
import { InvalidPayloadError } from '../errors/catalogue.js';
import { parseQuery, type QueryParseOptions } from './parse-query.js';
import type { KeyInput, Query } from './query.js';

export type Payload = Record<string, unknown>;
export type BodyKey = KeyInput;

export type UpdateBody =
  /** An array of items, each with its key. */
  | { kind: 'batch'; items: Payload[] }
  | { kind: 'keys'; keys: BodyKey[]; data: Payload }
  | { kind: 'query'; query: Query; data: Payload };

export type DeleteBody = { kind: 'keys'; keys: BodyKey[] } | { kind: 'query'; query: Query };

export function isPayload(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function required(body: unknown): void {
  if (body === undefined || body === null) throw new InvalidPayloadError('Payload in body is required');
}

/** POST: an object creates one item, an array creates many. */
export function parseCreateBody(body: unknown): { many: boolean; items: Payload[] } {
  required(body);
  if (Array.isArray(body)) {
    const bad = body.findIndex((item) => !isPayload(item));
    if (bad !== -1) throw new InvalidPayloadError(`"[${bad}]" must be of type object`);
    return { many: true, items: body as Payload[] };
  }
  if (!isPayload(body)) throw new InvalidPayloadError('"value" must be of type object');
  return { many: false, items: [body] };
}

/** PATCH of one item (by key, or a singleton): a partial item. */
export function parseItemBody(body: unknown): Payload {
  required(body);
  if (!isPayload(body)) throw new InvalidPayloadError('"value" must be of type object');
  return body;
}

/** PATCH /items/{c}: an array of items with keys, `{keys, data}` or `{query, data}`. */
export function parseUpdateBody(body: unknown, options: QueryParseOptions): UpdateBody {
  required(body);
  if (Array.isArray(body)) {
    const bad = body.findIndex((item) => !isPayload(item));
    if (bad !== -1) throw new InvalidPayloadError(`"[${bad}]" must be of type object`);
    return { kind: 'batch', items: body as Payload[] };
  }
  const envelope = batchEnvelope(body, ['keys', 'query', 'data']);
  if (envelope.data === undefined) throw new InvalidPayloadError('"data" is required');
  if (!isPayload(envelope.data)) throw new InvalidPayloadError('"data" must be of type object');
  const data = envelope.data;
  const selection = keysOrQuery(envelope, options);
  return selection.kind === 'keys' ? { kind: 'keys', keys: selection.keys, data } : { kind: 'query', query: selection.query, data };
}

/** DELETE /items/{c}: an array of keys, `{keys}` or `{query}`. */
export function parseDeleteBody(body: unknown, options: QueryParseOptions): DeleteBody {
  required(body);
  if (Array.isArray(body)) return { kind: 'keys', keys: keyArray(body, 'value') };
  return keysOrQuery(batchEnvelope(body, ['keys', 'query']), options);
}

function batchEnvelope(body: unknown, allowed: string[]): Payload {
  if (!isPayload(body)) throw new InvalidPayloadError('"value" must be of type object');
  const unknownKey = Object.keys(body).find((key) => !allowed.includes(key));
  if (unknownKey !== undefined) throw new InvalidPayloadError(`"${unknownKey}" is not allowed`);
  return body;
}

function keysOrQuery(envelope: Payload, options: QueryParseOptions): DeleteBody {
  const hasKeys = envelope.keys !== undefined;
  const hasQuery = envelope.query !== undefined;
  if (hasKeys && hasQuery) throw new InvalidPayloadError('"value" contains a conflict between exclusive peers [keys, query]');
  if (!hasKeys && !hasQuery) throw new InvalidPayloadError('"value" must contain at least one of [keys, query]');
  if (hasKeys) return { kind: 'keys', keys: keyArray(envelope.keys, 'keys') };
  if (!isPayload(envelope.query)) throw new InvalidPayloadError('"query" must be of type object');
  return { kind: 'query', query: parseQuery(envelope.query, options) };
}

function keyArray(value: unknown, name: string): BodyKey[] {
  if (!Array.isArray(value)) throw new InvalidPayloadError(`"${name}" must be an array`);
  // Objects name the columns of a composite key; whether a key fits the collection is the planner's to say.
  const bad = value.findIndex((key) => typeof key !== 'string' && typeof key !== 'number' && !isPayload(key));
  if (bad !== -1) throw new InvalidPayloadError(`"${name}[${bad}]" must be a string, a number or an object of key fields`);
  return value as BodyKey[];
}
