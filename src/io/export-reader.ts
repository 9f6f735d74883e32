/**
 * Reads a collection for an export in batches of `batchSize` rows, through the same planner and permissions as
 * /items, so that memory stays that of one batch whatever the size of the export. Without a sort of the caller's
 * (and no sort field on the collection) rows are read by key ranges (`key > last`), which stays fast at any depth
 * of the export; otherwise by offsets.
 */
import type { Accountability } from '../permissions/accountability.js';
import type { FilterNode, Query } from '../request/query.js';
import type { SchemaOverview } from '../schema/types.js';
import type { ItemsService, ReadOptions } from '../engine/read/items-service.js';
import type { Row } from '../db/connection.js';

export interface ExportReadOptions {
  items: ItemsService;
  schema: SchemaOverview;
  accountability: Accountability;
  batchSize: number;
  /** The row limit of a read without `limit` (QUERY_LIMIT_DEFAULT), as /items applies it. */
  queryLimitDefault: number;
  read?: ReadOptions;
  /** Told the size of every batch read (progress bars). */
  onBatch?: (rows: number) => void;
  /** CSV only: prefix `'` to formula-like cells (EXPORT_CSV_ESCAPE_FORMULAS; default true). */
  escapeFormulas?: boolean;
}

export async function* exportBatches(
  collection: string,
  query: Query,
  options: ExportReadOptions,
): AsyncGenerator<Row[]> {
  const { items, schema, accountability, batchSize } = options;
  const read = (q: Query) =>
    items.rowsMany(collection, q, accountability, undefined, options.read).then((read) => read.data);
  const overview = schema.collections[collection];
  const { meta: _meta, ...base } = query;

  // Aggregates, key lists and singletons answer in one read (their size does not grow with the table).
  if (query.aggregate || query.groupBy || query.keys || overview?.singleton) {
    const data = await read(base);
    const rows = Array.isArray(data) ? (data as Row[]) : data ? [data as Row] : [];
    options.onBatch?.(rows.length);
    yield rows;
    return;
  }

  const limit = base.limit ?? options.queryLimitDefault;
  const total = limit === -1 ? Infinity : limit;
  let offset = base.offset ?? (base.page ? (base.page - 1) * total : 0);
  delete base.page;
  const pk = overview?.primary ?? null;
  let keyset = pk !== null && !base.sort?.length && !overview?.sortField && offset === 0;
  const addPk =
    keyset && pk !== null && base.fields !== undefined && !base.fields.includes('*') && !base.fields.includes(pk);
  if (addPk) base.fields = [...base.fields!, pk!];
  let last: unknown = undefined;
  let sent = 0;

  while (sent < total) {
    const size = Math.min(batchSize, total - sent);
    const batchQuery: Query = { ...base, limit: size };
    if (keyset && last !== undefined)
      batchQuery.filter = andFilter(base.filter, {
        type: 'condition',
        field: pk!,
        operator: '_gt',
        value: last as string | number,
      });
    else if (!keyset) batchQuery.offset = offset;
    const rows = (await read(batchQuery)) as Row[];
    if (keyset && rows.length) {
      last = rows[rows.length - 1]![pk!];
      // The key is not readable by this caller: carry on by offsets (the default sort is then not the key either).
      if (last === undefined || last === null) keyset = false;
      if (addPk) for (const row of rows) delete row[pk!];
    }
    offset += rows.length;
    sent += rows.length;
    options.onBatch?.(rows.length);
    if (rows.length) yield rows;
    if (rows.length < size) return;
  }
}

function andFilter(filter: FilterNode | null | undefined, extra: FilterNode): FilterNode {
  return filter ? { type: 'logical', operator: '_and', children: [filter, extra] } : extra;
}
