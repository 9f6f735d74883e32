/**
 * Revisions as a non-admin may see them: only revisions of items the caller may read now, and in their `data` and
 * `delta` only the fields the caller may read of that item (a revision must not show a hidden field's value). The
 * revisions read first under the caller's service_revisions rules (one statement); then, per collection they name,
 * one read of the named items under the caller's rules for that collection, which answers both which items are
 * readable and which of their fields. Admins read revisions unfiltered.
 */
import { ServiceError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import { keyOfValues } from '../../plan/row-key.js';
import type { Query } from '../../request/query.js';
import type { SchemaOverview } from '../../schema/types.js';
import type { ItemsService, JsonRead } from './items-service.js';

type Revision = Record<string, unknown>;

const NEEDED = ['collection', 'item'];

/** The query with `collection` and `item` selected (needed to judge each revision), and which of them were added. */
export function withJudgedFields(query: Query): { query: Query; added: string[] } {
  const fields = query.fields;
  if (!fields || fields.includes('*')) return { query, added: [] };
  const added = NEEDED.filter((name) => !fields.includes(name));
  return { query: { ...query, fields: [...fields, ...added] }, added };
}

/** The readable fields of each readable item of `collection` among `keys`, by key as text. */
async function readableItems(
  items: ItemsService,
  schema: SchemaOverview,
  collection: string,
  keys: string[],
  accountability: Accountability,
): Promise<Map<string, Set<string>>> {
  const found = new Map<string, Set<string>>();
  const overview = schema.collections[collection];
  if (!overview || !overview.schema) return found;
  let rows: unknown;
  try {
    rows = (await items.rowsKeys(collection, keys, { fields: ['*'] }, accountability, { system: overview.system }))
      .data;
  } catch (error) {
    // No read rule on the collection (or a key that can't be one): none of its items is readable.
    if (error instanceof ServiceError) return found;
    throw error;
  }
  for (const row of (rows ?? []) as Record<string, unknown>[]) {
    const key = keyOfValues(overview, row);
    if (key !== null && key !== undefined) found.set(String(key), new Set(Object.keys(row)));
  }
  return found;
}

function stripped(value: unknown, readable: Set<string>): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, field] of Object.entries(value)) if (readable.has(name)) out[name] = field;
  return out;
}

/** The revisions `read` answered, those of unreadable items dropped, hidden fields stripped from data and delta. */
export async function judgeRevisions(
  items: ItemsService,
  schema: SchemaOverview,
  read: JsonRead,
  accountability: Accountability,
  added: string[],
): Promise<JsonRead> {
  if (accountability.admin) return read;
  const revisions = JSON.parse(read.json) as Revision[] | Revision | null;
  const list = Array.isArray(revisions) ? revisions : revisions ? [revisions] : [];
  const kept = await judgeRevisionList(items, schema, list, accountability, added);
  const json = Array.isArray(revisions) ? JSON.stringify(kept) : JSON.stringify(kept[0] ?? null);
  return { ...read, json };
}

/** `judgeRevisions` over revisions as values (GraphQL's reads). */
export async function judgeRevisionList(
  items: ItemsService,
  schema: SchemaOverview,
  list: Revision[],
  accountability: Accountability,
  added: string[],
): Promise<Revision[]> {
  if (accountability.admin) return list;
  const keysOf = new Map<string, Set<string>>();
  for (const revision of list) {
    const collection = String(revision.collection);
    const keys = keysOf.get(collection) ?? new Set<string>();
    keys.add(String(revision.item));
    keysOf.set(collection, keys);
  }
  const readable = new Map<string, Map<string, Set<string>>>();
  for (const [collection, keys] of keysOf)
    readable.set(collection, await readableItems(items, schema, collection, [...keys], accountability));
  const kept: Revision[] = [];
  for (const revision of list) {
    const fields = readable.get(String(revision.collection))?.get(String(revision.item));
    if (!fields) continue;
    const out: Revision = { ...revision };
    if ('data' in out) out.data = stripped(out.data, fields);
    if ('delta' in out) out.delta = stripped(out.delta, fields);
    for (const name of added) delete out[name];
    kept.push(out);
  }
  return kept;
}
