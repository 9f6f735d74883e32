/**
 * The `items` message of /websocket (Directus docs: WebSockets, Items): CRUD over the socket through the same
 * services as REST's /items routes (ItemsWriter.open checks the collection and action, the body parsers validate, the
 * writer runs the transaction and emits the change events), so there is no second write path. The answer is
 * `{type:'items', data, uid}`; errors are answered by the session in the protocol's error shape.
 *
 *   create: `data` (an object or an array), `query` shapes the read-back
 *   read:   `id` | `ids` | `query`
 *   update: `id` + `data` | `ids` + `data` | `query` + `data` | `data` as an array of items with their keys
 *   delete: `id` | `ids` | `query`; answers the keys it was given (or null for a query)
 */
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import { parseQuery } from '../../request/parse-query.js';
import { parseCreateBody, parseDeleteBody, parseItemBody, parseUpdateBody } from '../../request/write-body.js';
import type { RealtimeApi } from '../../app/ports.js';
import { NO_MARKS, type RowsRead } from '../../engine/read/items-service.js';

type Message = Record<string, unknown>;

/** Written items are read back as values (the socket sends its own JSON), as GraphQL's resolvers do. */
const ROWS = { reread: 'rows' as const };

const ACTIONS = ['create', 'read', 'update', 'delete'] as const;

/**
 * The system collections an `items` message may name, as Directus serves its files and folders over the socket: with
 * the rules and semantics of their JSON routes (a file row deleted here loses its bytes, by the writer's delete hook).
 */
const SOCKET_SYSTEM_COLLECTIONS: ReadonlySet<string> = new Set(['service_files', 'service_folders']);

function keyOf(value: unknown, name: string): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new InvalidPayloadError(`"${name}" must be a string or a number.`);
}

function keysOf(value: unknown): (string | number)[] {
  if (!Array.isArray(value) || value.some((key) => typeof key !== 'string' && typeof key !== 'number'))
    throw new InvalidPayloadError('"ids" must be an array of keys.');
  return value as (string | number)[];
}

const decoded = (read: RowsRead | null): unknown => (read === null ? null : read.data);

/** Runs one `items` message as `accountability`; returns what goes in the answer's `data`. */
export async function runItemsMessage(
  context: RealtimeApi,
  message: Message,
  accountability: Accountability,
): Promise<unknown> {
  const { config, writer, items } = context;
  const action = message.action;
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action))
    throw new InvalidPayloadError('"action" must be create, read, update or delete.');
  const collection = message.collection;
  if (typeof collection !== 'string' || collection === '') throw new InvalidPayloadError('"collection" is required.');
  if (message.query !== undefined && (typeof message.query !== 'object' || message.query === null))
    throw new InvalidPayloadError('"query" must be an object.');
  const options = {
    queryLimitMax: config.queryLimitMax,
    maxRelationalDepth: config.maxRelationalDepth,
    maxJsonQueryDepth: config.maxJsonQueryDepth,
  };
  const rawQuery = (message.query ?? {}) as Record<string, unknown>;
  const system = SOCKET_SYSTEM_COLLECTIONS.has(collection) ? { system: true } : {};
  const hasId = message.id !== undefined;
  const hasIds = message.ids !== undefined;

  if (action === 'read') {
    const query = parseQuery(rawQuery, options);
    if (hasId)
      return decoded(await items.rowsOne(collection, keyOf(message.id, 'id'), query, accountability, NO_MARKS, system));
    if (hasIds) return decoded(await items.rowsKeys(collection, keysOf(message.ids), query, accountability, system));
    return decoded(await items.rowsMany(collection, query, accountability, NO_MARKS, system));
  }

  if (action === 'create') {
    const target = await writer.open(collection, 'create', accountability, { ...ROWS, ...system });
    const { many, items: payloads } = parseCreateBody(message.data);
    return decoded(await writer.create(target, payloads, many, parseQuery(rawQuery, options)));
  }

  if (action === 'update') {
    const target = await writer.open(collection, 'update', accountability, { ...ROWS, ...system });
    if (hasId) {
      const payload = parseItemBody(message.data);
      return decoded(await writer.updateOne(target, keyOf(message.id, 'id'), payload, parseQuery(rawQuery, options)));
    }
    // With ids or a query, `query` selects the items; the read-back is the caller's default fields.
    const body = hasIds
      ? parseUpdateBody({ keys: keysOf(message.ids), data: message.data }, options)
      : Array.isArray(message.data)
        ? parseUpdateBody(message.data, options)
        : parseUpdateBody({ query: rawQuery, data: message.data }, options);
    return decoded(await writer.updateMany(target, body, body.kind === 'query' ? {} : parseQuery(rawQuery, options)));
  }

  const target = await writer.open(collection, 'delete', accountability, system);
  if (hasId) {
    const key = keyOf(message.id, 'id');
    await writer.delete(target, { kind: 'keys', keys: [key] });
    return message.id;
  }
  if (hasIds) {
    await writer.delete(target, parseDeleteBody(keysOf(message.ids), options));
    return message.ids;
  }
  if (message.query === undefined) throw new InvalidPayloadError('"delete" needs "id", "ids" or "query".');
  await writer.delete(target, parseDeleteBody({ query: rawQuery }, options));
  return null;
}
