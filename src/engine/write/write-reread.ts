/**
 * What a write reads through the read engine: the keys an update or delete by query selects (the caller's read
 * rules and the default limit apply), and the re-read of the written rows in the form the caller asked for.
 */
import { ForbiddenError } from '../../errors/catalogue.js';
import type { Key } from '../../plan/mutation-plan.js';
import { keyOfValues } from '../../plan/row-key.js';
import type { Query } from '../../request/query.js';
import { NO_MARKS, type ItemsService, type JsonRead, type ReadOptions, type RowsRead } from '../read/items-service.js';
import type { OpenedCollection, Reread, WriteOptions, WriteResult } from './opened-collection.js';

/**
 * The keys of the items a query selects, read through the read engine (so the caller's read rules apply, and
 * the default limit: update and delete by query touch at most QUERY_LIMIT_DEFAULT items unless `limit` says more).
 */
export async function keysByQuery(items: ItemsService, opened: OpenedCollection<Reread>, query: Query): Promise<Key[]> {
  const target = opened.collection;
  const { data } = await items.rowsMany(
    target.collection,
    { ...query, fields: [...target.keyFields], meta: undefined },
    opened.ctx.accountability,
    NO_MARKS,
    { system: opened.options.system },
  );
  const rows = (Array.isArray(data) ? data : data ? [data] : []) as Record<string, Key>[];
  return rows.map((row) => keyOfValues(target, row)).filter((key): key is Key => key !== null && key !== undefined);
}

export function readKey<R extends Reread>(
  items: ItemsService,
  target: OpenedCollection<R>,
  key: Key,
  query: Query,
): Promise<WriteResult<R>> {
  const { collection, ctx, options } = target;
  const keyQuery = { ...query, meta: undefined };
  return reread(
    items,
    options,
    (items, read) => items.readOne(collection.collection, String(key), keyQuery, ctx.accountability, NO_MARKS, read),
    (items, read) => items.rowsOne(collection.collection, String(key), keyQuery, ctx.accountability, NO_MARKS, read),
  );
}

/** The written rows, in the read engine's order (the collection's sort field, else the key). */
export function readKeys<R extends Reread>(
  items: ItemsService,
  target: OpenedCollection<R>,
  keys: Key[],
  query: Query,
): Promise<WriteResult<R>> {
  const { collection, ctx, options } = target;
  return reread(
    items,
    options,
    (items, read) => items.readKeys(collection.collection, keys, query, ctx.accountability, read),
    (items, read) => items.rowsKeys(collection.collection, keys, query, ctx.accountability, read),
  );
}

/** The re-read in the form the caller asked for; one the caller is not allowed (FORBIDDEN) answers 204, as Directus does. */
export async function reread<R extends Reread>(
  items: ItemsService,
  options: WriteOptions<R>,
  json: (items: ItemsService, read: ReadOptions) => Promise<JsonRead>,
  rows: (items: ItemsService, read: ReadOptions) => Promise<RowsRead>,
): Promise<WriteResult<R>> {
  const read: ReadOptions = { system: options.system, form: options.form };
  try {
    return (await (options.reread === 'rows' ? rows(items, read) : json(items, read))) as WriteResult<R>;
  } catch (error) {
    if (error instanceof ForbiddenError) return null;
    throw error;
  }
}
