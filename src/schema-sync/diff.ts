/**
 * Snapshot → diff in Directus's format: `{hash, diff: {collections: [{collection, diff}], fields: [{collection,
 * field, diff}], relations: [{collection, field, related_collection, diff}]}}`, each `diff` a list of deep-diff
 * changes (`N` new, `D` deleted, `E` edited, `A` array) from the current schema to the snapshot.
 */
import deepDiff from 'deep-diff';
import { InvalidPayloadError } from '../errors/catalogue.js';
import type { Json, Snapshot, SnapshotCollection, SnapshotField, SnapshotRelation } from './snapshot.js';

export type Change = deepDiff.Diff<Json, Json>;

export interface SchemaDiff {
  collections: { collection: string; diff: Change[] }[];
  fields: { collection: string; field: string; diff: Change[] }[];
  relations: { collection: string; field: string; related_collection: string | null; diff: Change[] }[];
}

export interface DiffAnswer {
  hash: string;
  diff: SchemaDiff;
}

function diffItems<T extends object>(current: T[], wanted: T[], key: (item: T) => string): { key: string; item: T; diff: Change[] }[] {
  const before = new Map(current.map((item) => [key(item), item]));
  const after = new Map(wanted.map((item) => [key(item), item]));
  const out: { key: string; item: T; diff: Change[] }[] = [];
  for (const [k, item] of after) {
    const old = before.get(k);
    if (!old) out.push({ key: k, item, diff: [{ kind: 'N', rhs: item as unknown as Json }] });
    else {
      const changes = deepDiff.diff(old as unknown as Json, item as unknown as Json) as Change[] | undefined;
      if (changes?.length) out.push({ key: k, item, diff: changes });
    }
  }
  for (const [k, item] of before) if (!after.has(k)) out.push({ key: k, item, diff: [{ kind: 'D', lhs: item as unknown as Json }] });
  return out;
}

export function diffSnapshots(current: Snapshot, wanted: Snapshot): SchemaDiff {
  return {
    collections: diffItems<SnapshotCollection>(current.collections, wanted.collections, (c) => c.collection).map(({ item, diff }) => ({ collection: item.collection, diff })),
    fields: diffItems<SnapshotField>(current.fields, wanted.fields, (f) => `${f.collection}.${f.field}`).map(({ item, diff }) => ({ collection: item.collection, field: item.field, diff })),
    relations: diffItems<SnapshotRelation>(current.relations, wanted.relations, (r) => `${r.collection}.${r.field}`).map(({ item, diff }) => ({
      collection: item.collection,
      field: item.field,
      related_collection: item.related_collection,
      diff,
    })),
  };
}

export function isEmptyDiff(diff: SchemaDiff): boolean {
  return !diff.collections.length && !diff.fields.length && !diff.relations.length;
}

/** A snapshot from a request body: the shape checked, so that a bad file is INVALID_PAYLOAD, not a 500. */
export function parseSnapshot(body: unknown): Snapshot {
  const object = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (!object) throw new InvalidPayloadError('A snapshot must be an object');
  const data = object.data && typeof object.data === 'object' && !('collections' in object) ? (object.data as Record<string, unknown>) : object;
  for (const key of ['collections', 'fields', 'relations'] as const) {
    if (!Array.isArray(data[key])) throw new InvalidPayloadError(`"${key}" must be an array`);
  }
  const items = (key: string, names: string[]) =>
    (data[key] as unknown[]).forEach((item, i) => {
      if (!item || typeof item !== 'object') throw new InvalidPayloadError(`"${key}[${i}]" must be an object`);
      for (const name of names) if (typeof (item as Record<string, unknown>)[name] !== 'string') throw new InvalidPayloadError(`"${key}[${i}].${name}" must be a string`);
    });
  items('collections', ['collection']);
  items('fields', ['collection', 'field', 'type']);
  items('relations', ['collection', 'field']);
  if (typeof data.version !== 'number') throw new InvalidPayloadError('"version" must be a number');
  return data as unknown as Snapshot;
}

/** A diff from a request body (`{hash, diff}`), shape checked. */
export function parseDiffAnswer(body: unknown): DiffAnswer {
  const object = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (!object) throw new InvalidPayloadError('Body must be {hash, diff}');
  const data = object.data && typeof object.data === 'object' && !('hash' in object) ? (object.data as Record<string, unknown>) : object;
  if (typeof data.hash !== 'string') throw new InvalidPayloadError('"hash" is required');
  const diff = data.diff as Record<string, unknown> | undefined;
  if (!diff || typeof diff !== 'object') throw new InvalidPayloadError('"diff" is required');
  for (const key of ['collections', 'fields', 'relations']) {
    if (!Array.isArray(diff[key])) throw new InvalidPayloadError(`"diff.${key}" must be an array`);
    for (const [i, entry] of (diff[key] as unknown[]).entries()) {
      const e = entry as Record<string, unknown> | null;
      if (!e || typeof e.collection !== 'string' || !Array.isArray(e.diff) || (key !== 'collections' && typeof e.field !== 'string')) {
        throw new InvalidPayloadError(`"diff.${key}[${i}]" must name its collection${key === 'collections' ? '' : ' and field'} and hold a "diff" array`);
      }
    }
  }
  return { hash: data.hash, diff: diff as unknown as SchemaDiff };
}
