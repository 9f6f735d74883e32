/**
 * Relational values between the item API's nested form and the form's lists: which nested fields to read for a
 * relational field, how rows read become list entries, and how entries become the payload (the API's basic form:
 * keys link or keep, objects create, omitted rows are unlinked, all in the parent's transaction).
 */
import { displayTemplate, templateFields } from './names';
import { can, primaryKey, type RelationInfo } from './session';

export interface Entry {
  /** o2m: the related row's key; m2m/m2a: the junction row's key. Absent for entries added in the form. */
  key?: unknown;
  /** What the list shows. */
  item: Record<string, unknown> | null;
  /** An existing related item to link (added in the form). */
  pick?: unknown;
  /** A new related item to create (added in the form). */
  create?: Record<string, unknown>;
  /** m2a: the collection of the item. */
  collection?: string;
}

/** Nested fields to read for a relational field; only what the caller may read, so the read never fails. */
export function readFields(field: string, info: RelationInfo): string[] {
  // A related collection's display template may name nested fields ("author.name"): they are read too.
  const titled = (path: string, collection: string) => [
    `${path}.*`,
    ...templateFields(displayTemplate(collection), collection).map((p) => `${path}.${p}`),
  ];
  if (info.type === 'm2o') return can(info.related, 'read') ? titled(field, info.related) : [field];
  if (info.type === 'o2m') return can(info.related, 'read') ? titled(field, info.related) : [];
  if (!can(info.junction, 'read')) return [];
  if (info.type === 'm2m')
    return can(info.related, 'read')
      ? [`${field}.*`, ...titled(`${field}.${info.junctionField}`, info.related)]
      : [`${field}.*`];
  return [
    `${field}.*`,
    ...info.allowed.filter((c) => can(c, 'read')).flatMap((c) => titled(`${field}.${info.itemField}:${c}`, c)),
  ];
}

export function toEntries(info: RelationInfo, rows: unknown): Entry[] {
  if (info.type === 'm2o' || !Array.isArray(rows)) return [];
  const sortField = info.sortField;
  const sorted = sortField ? [...rows].sort((a: any, b: any) => (a?.[sortField] ?? 0) - (b?.[sortField] ?? 0)) : rows;
  if (info.type === 'o2m') {
    const pk = primaryKey(info.related);
    return sorted.map((row: any) =>
      typeof row === 'object' && row ? { key: row[pk], item: row } : { key: row, item: null },
    );
  }
  const jpk = primaryKey(info.junction);
  return sorted.map((row: any) => {
    if (typeof row !== 'object' || !row) return { key: row, item: null };
    const target = info.type === 'm2m' ? row[info.junctionField] : row[info.itemField];
    return {
      key: row[jpk],
      item: typeof target === 'object' && target ? target : { value: target },
      collection: info.type === 'm2a' ? row[info.collectionField] : undefined,
    };
  });
}

export function toPayload(info: RelationInfo, entries: Entry[]): unknown[] {
  if (info.type === 'm2o') return [];
  const sortField = info.sortField;
  const withSort = (value: Record<string, unknown>, i: number) =>
    sortField ? { ...value, [sortField]: i + 1 } : value;
  if (info.type === 'o2m') {
    const pk = primaryKey(info.related);
    return entries.map((e, i) => {
      if (e.create) return withSort(e.create, i);
      const key = e.key ?? e.pick;
      return sortField ? { [pk]: key, [sortField]: i + 1 } : key;
    });
  }
  const jpk = primaryKey(info.junction);
  const target = info.type === 'm2m' ? info.junctionField : info.itemField;
  return entries.map((e, i) => {
    if (e.key !== undefined) return sortField ? { [jpk]: e.key, [sortField]: i + 1 } : e.key;
    const row: Record<string, unknown> = { [target]: e.create ?? e.pick };
    if (info.type === 'm2a') row[info.collectionField] = e.collection;
    return withSort(row, i);
  });
}
