/**
 * Introspected tables ⊕ service_* metadata rows → SchemaOverview. Pure; the store calls it at start and after
 * schema changes.
 */
import type {
  CollectionMeta,
  CollectionOverview,
  ColumnInfo,
  FieldMeta,
  FieldOverview,
  RelationOverview,
  SchemaOverview,
  ServiceType,
  TableInfo,
} from './types.js';
import { attachRelationalLinks } from './relation-links.js';
import { impliedFileRelations, SYSTEM_FIELDS, SYSTEM_RELATIONS, systemCollectionMeta } from './system-meta.js';
import type { Row } from '../db/connection.js';

export interface OverviewInput {
  tables: TableInfo[];
  collections: Row[];
  fields: Row[];
  relations: Row[];
  mapType: (column: ColumnInfo) => ServiceType;
  version: number;
}

const SEARCHABLE: ReadonlySet<ServiceType> = new Set([
  'string',
  'text',
  'integer',
  'bigInteger',
  'float',
  'decimal',
  'uuid',
]);
const TEXTUAL_COLUMN = /char|text|uuid|clob|string/i;

export function buildSchemaOverview(input: OverviewInput): SchemaOverview {
  const present = new Set(input.tables.map((t) => t.name));
  const ownFields = new Set(input.fields.map((row) => `${row.collection}\u0000${row.field}`));
  const ownRelations = new Set(input.relations.map((row) => `${row.many_collection}\u0000${row.many_field}`));
  // Built-in metadata of the service_* tables, unless the database holds its own rows for the same fields.
  input = {
    ...input,
    fields: [
      ...input.fields,
      ...SYSTEM_FIELDS.filter(
        (row) => present.has(String(row.collection)) && !ownFields.has(`${row.collection}\u0000${row.field}`),
      ),
    ],
    relations: [
      ...input.relations,
      ...SYSTEM_RELATIONS.filter(
        (row) =>
          present.has(String(row.many_collection)) &&
          present.has(String(row.one_collection)) &&
          !ownRelations.has(`${row.many_collection}\u0000${row.many_field}`),
      ),
      ...(present.has('service_files') ? impliedFileRelations(input.fields, ownRelations) : []),
    ],
  };
  const collectionMeta = new Map(input.collections.map((row) => [String(row.collection), decodeCollectionMeta(row)]));
  const fieldMeta = new Map<string, FieldMeta[]>();
  for (const row of input.fields) {
    const meta = decodeFieldMeta(row);
    fieldMeta.set(meta.collection, [...(fieldMeta.get(meta.collection) ?? []), meta]);
  }

  // Maps keyed by names a request chooses: no prototype, so `fields=constructor` or `/items/__proto__` names nothing.
  const collections: Record<string, CollectionOverview> = Object.create(null);
  for (const table of input.tables) {
    const metas = new Map((fieldMeta.get(table.name) ?? []).map((m) => [m.field, m]));
    const fields: Record<string, FieldOverview> = Object.create(null);
    const order: string[] = [];
    for (const column of table.columns) {
      fields[column.name] = fieldFor(column.name, column, metas.get(column.name) ?? null, input.mapType);
      order.push(column.name);
    }
    const aliases = [...metas.values()]
      .filter((m) => !(m.field in fields))
      .sort((a, b) => (a.sort ?? 0) - (b.sort ?? 0));
    for (const meta of aliases) {
      fields[meta.field] = fieldFor(meta.field, null, meta, input.mapType);
      order.push(meta.field);
    }
    const rowMeta = collectionMeta.get(table.name) ?? null;
    const system = table.name.startsWith('service_');
    const meta = rowMeta ?? (system ? systemCollectionMeta(table.name) : null);
    collections[table.name] = {
      collection: table.name,
      // A composite key is never reduced to its first column: that addressed several rows as one.
      primary: table.primary_key.length === 1 ? table.primary_key[0]! : null,
      keyFields: [...table.primary_key],
      singleton: rowMeta?.singleton ?? false,
      sortField: meta?.sort_field && meta.sort_field in fields ? meta.sort_field : null,
      fields,
      fieldOrder: order,
      meta,
      schema: { name: table.name, comment: table.comment },
      system,
      view: table.view === true,
      links: Object.create(null),
    };
  }
  for (const [name, meta] of collectionMeta) {
    if (collections[name]) continue;
    collections[name] = {
      collection: name,
      primary: null,
      keyFields: [],
      singleton: meta.singleton,
      sortField: null,
      fields: Object.create(null),
      fieldOrder: [],
      meta,
      schema: null,
      system: false,
      view: false,
      links: Object.create(null),
    };
  }

  const relations = buildRelations(input.tables, input.relations);
  attachRelationalLinks(collections, relations);
  return deepFreeze({ version: input.version, collections, relations });
}

function fieldFor(
  name: string,
  column: ColumnInfo | null,
  meta: FieldMeta | null,
  mapType: (c: ColumnInfo) => ServiceType,
): FieldOverview {
  const special = meta?.special ?? [];
  let type: ServiceType = column ? mapType(column) : 'alias';
  if (column) {
    if (special.includes('uuid') && TEXTUAL_COLUMN.test(column.data_type)) type = 'uuid';
    else if (special.includes('hash')) type = 'hash';
    else if (special.includes('cast-csv')) type = 'csv';
    else if (special.includes('cast-json')) type = 'json';
    else if (special.includes('cast-boolean')) type = 'boolean';
    else if (special.includes('cast-timestamp')) type = 'timestamp';
  }
  const concealed = special.includes('conceal') || type === 'hash';
  return {
    field: name,
    type,
    special,
    schema: column,
    meta,
    nullable: column ? column.is_nullable : true,
    primaryKey: column?.is_primary_key ?? false,
    concealed,
    searchable: column !== null && !concealed && SEARCHABLE.has(type) && meta?.searchable !== false,
  };
}

function buildRelations(tables: TableInfo[], rows: Row[]): RelationOverview[] {
  const relations: RelationOverview[] = [];
  const fks = new Map<string, TableInfo['foreign_keys'][number]>(
    tables.flatMap((t) => t.foreign_keys.map((fk) => [`${fk.table}\u0000${fk.column}`, fk] as [string, typeof fk])),
  );
  const seen = new Set<string>();
  for (const row of rows) {
    const meta = decodeRelationMeta(row);
    const key = `${meta.many_collection}\u0000${meta.many_field}`;
    seen.add(key);
    const fk = fks.get(key);
    relations.push({
      collection: meta.many_collection,
      field: meta.many_field,
      related_collection: meta.one_collection,
      schema: fk ? { ...fk } : null,
      meta,
    });
  }
  for (const [key, fk] of fks) {
    if (seen.has(key)) continue;
    relations.push({
      collection: fk.table,
      field: fk.column,
      related_collection: fk.foreign_key_table,
      schema: { ...fk },
      meta: null,
    });
  }
  return relations;
}

function bool(value: unknown, fallback: boolean): boolean {
  if (value === null || value === undefined) return fallback;
  return value === true || value === 1 || value === '1' || value === 'true';
}

function str(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function num(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

function jsonValue<T>(value: unknown): T | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string') return value as T;
  try {
    return JSON.parse(value) as T;
  } catch {
    return null;
  }
}

function csv(value: unknown): string[] | null {
  if (value === null || value === undefined || value === '') return null;
  if (Array.isArray(value)) return value.map(String);
  return String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function decodeFieldMeta(row: Row): FieldMeta {
  return {
    id: Number(row.id),
    collection: String(row.collection),
    field: String(row.field),
    special: csv(row.special),
    interface: str(row.interface),
    options: jsonValue(row.options),
    display: str(row.display),
    display_options: jsonValue(row.display_options),
    readonly: bool(row.readonly, false),
    hidden: bool(row.hidden, false),
    sort: num(row.sort),
    width: str(row.width),
    translations: jsonValue(row.translations),
    note: str(row.note),
    conditions: jsonValue(row.conditions),
    required: bool(row.required, false),
    group: str(row.group),
    validation: jsonValue(row.validation),
    validation_message: str(row.validation_message),
    searchable: bool(row.searchable, true),
  };
}

export function decodeCollectionMeta(row: Row): CollectionMeta {
  return {
    collection: String(row.collection),
    icon: str(row.icon),
    note: str(row.note),
    display_template: str(row.display_template),
    hidden: bool(row.hidden, false),
    singleton: bool(row.singleton, false),
    translations: jsonValue(row.translations),
    archive_field: str(row.archive_field),
    archive_app_filter: bool(row.archive_app_filter, true),
    archive_value: str(row.archive_value),
    unarchive_value: str(row.unarchive_value),
    sort_field: str(row.sort_field),
    accountability: str(row.accountability),
    color: str(row.color),
    item_duplication_fields: jsonValue(row.item_duplication_fields),
    sort: num(row.sort),
    group: str(row.group),
    collapse: str(row.collapse) ?? 'open',
    preview_url: str(row.preview_url),
    versioning: bool(row.versioning, false),
  };
}

function decodeRelationMeta(row: Row): NonNullable<RelationOverview['meta']> {
  return {
    id: num(row.id),
    many_collection: String(row.many_collection),
    many_field: String(row.many_field),
    one_collection: str(row.one_collection),
    one_field: str(row.one_field),
    one_collection_field: str(row.one_collection_field),
    one_allowed_collections: csv(row.one_allowed_collections),
    junction_field: str(row.junction_field),
    sort_field: str(row.sort_field),
    one_deselect_action: row.one_deselect_action === 'delete' ? 'delete' : 'nullify',
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
