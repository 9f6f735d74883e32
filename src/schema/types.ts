/**
 * The SchemaOverview: what Strata knows of the connected database (introspection merged with the
 * service_* metadata). Built at start and after schema changes; immutable; never built on the request path.
 */

/** Service data types (Directus docs: Field types). */
export type ServiceType =
  | 'bigInteger'
  | 'boolean'
  | 'date'
  | 'dateTime'
  | 'decimal'
  | 'float'
  | 'integer'
  | 'json'
  | 'string'
  | 'text'
  | 'time'
  | 'timestamp'
  | 'binary'
  | 'uuid'
  | 'alias'
  | 'hash'
  | 'csv'
  | 'geometry'
  | 'unknown';

/** One column as the database describes it: the `schema` object of a field on the wire. Vendor-neutral shape. */
export interface ColumnInfo {
  name: string;
  table: string;
  data_type: string;
  default_value: unknown;
  max_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
  is_generated: boolean;
  generation_expression: string | null;
  is_nullable: boolean;
  is_unique: boolean;
  is_indexed: boolean;
  is_primary_key: boolean;
  has_auto_increment: boolean;
  foreign_key_column: string | null;
  foreign_key_table: string | null;
  comment: string | null;
  /**
   * Enumerated columns (PostgreSQL enum types, MariaDB `enum` and `set`): the values allowed, checked before SQL.
   * Internal: not part of the field schema object the API returns.
   */
  enum_values?: { values: string[]; many: boolean } | null;
  /**
   * Text columns: their collation as the database names it, where the dialect needs it to compare values it reads
   * from elsewhere with this column's (the audit trail's key lookups). Internal, like `enum_values`.
   */
  collation?: string | null;
}

/** One foreign-key constraint as introspected (single- or multi-column; multi-column ones are listed, not used as relations). */
export interface ForeignKeyInfo {
  table: string;
  column: string;
  foreign_key_table: string;
  foreign_key_column: string;
  constraint_name: string | null;
  on_update: string | null;
  on_delete: string | null;
}

/** One table as introspected. `columns` keep the table's column order. */
export interface TableInfo {
  name: string;
  comment: string | null;
  columns: ColumnInfo[];
  primary_key: string[];
  foreign_keys: ForeignKeyInfo[];
  /** A view (or PostgreSQL materialized view): served read-only. */
  view?: boolean;
}

/** A row of service_fields, decoded (special: string[], JSON columns parsed). */
export interface FieldMeta {
  id: number;
  collection: string;
  field: string;
  special: string[] | null;
  interface: string | null;
  options: Record<string, unknown> | null;
  display: string | null;
  display_options: Record<string, unknown> | null;
  readonly: boolean;
  hidden: boolean;
  sort: number | null;
  width: string | null;
  translations: unknown[] | null;
  note: string | null;
  conditions: unknown[] | null;
  required: boolean;
  group: string | null;
  validation: Record<string, unknown> | null;
  validation_message: string | null;
  searchable: boolean;
}

/** A row of service_collections, decoded. */
export interface CollectionMeta {
  collection: string;
  icon: string | null;
  note: string | null;
  display_template: string | null;
  hidden: boolean;
  singleton: boolean;
  translations: unknown[] | null;
  archive_field: string | null;
  archive_app_filter: boolean;
  archive_value: string | null;
  unarchive_value: string | null;
  sort_field: string | null;
  accountability: string | null;
  color: string | null;
  item_duplication_fields: unknown[] | null;
  sort: number | null;
  group: string | null;
  collapse: string;
  preview_url: string | null;
  versioning: boolean;
  /** Only on the service_* collections' own meta, as Directus marks its system collections. */
  system?: boolean;
}

export interface FieldOverview {
  field: string;
  /** Service type: from meta special flags where they decide it (uuid, hash, csv, cast-*), else mapped from the column. */
  type: ServiceType;
  special: string[];
  /** null for alias fields (no column). */
  schema: ColumnInfo | null;
  meta: FieldMeta | null;
  /** Convenience copies of the facts the planner needs on the hot path. */
  nullable: boolean;
  primaryKey: boolean;
  /** True when reads must return `**********` instead of the value (special `conceal` or type `hash`). */
  concealed: boolean;
  /** True when search may look at this field (string/text/numeric/uuid, not concealed, meta.searchable !== false). */
  searchable: boolean;
}

export interface CollectionOverview {
  collection: string;
  /**
   * Primary key field name when the key has exactly one column; null for composite keys and tables without one.
   * Code that addresses rows by key goes through `keyFields` (plan/row-key.ts), which composite keys need.
   */
  primary: string | null;
  /** Every primary-key column, in key order (empty without a key). */
  keyFields: string[];
  singleton: boolean;
  /** Sort field from meta, or null. */
  sortField: string | null;
  /** Fields in column order, then alias fields in meta sort order. */
  fields: Record<string, FieldOverview>;
  fieldOrder: string[];
  meta: CollectionMeta | null;
  /** null for folder collections (meta only, no table). */
  schema: { name: string; comment: string | null } | null;
  /** True for service_* tables. */
  system: boolean;
  /** A view or materialized view: its items are read, never written. */
  view: boolean;
  /** Relational fields of this collection by field name (m2o columns, o2m/m2m/m2a alias fields, a2o columns). */
  links: Record<string, RelationalLink>;
}

/**
 * How a relational field reaches other rows (derived from RelationOverview; Directus docs: Relations). m2m and m2a are o2m
 * links to a junction whose rows link on (m2o / a2o) through `junctionField`.
 */
export type RelationalLink =
  | {
      kind: 'm2o';
      field: string;
      related: string;
      /** The column of `related` that this field's value matches (its key, unless the FK names another column). */
      relatedField: string;
    }
  | {
      kind: 'o2m';
      field: string;
      related: string;
      /** The column of `related` that holds this collection's key. */
      relatedField: string;
      /** The column of this collection that `relatedField` matches. */
      localField: string;
      /** The junction's other relational field (m2m/m2a), or null. */
      junctionField: string | null;
      sortField: string | null;
      deselectAction: 'nullify' | 'delete';
    }
  | {
      kind: 'a2o';
      field: string;
      /** Sibling column holding the related collection's name. */
      collectionField: string;
      allowed: string[];
    };

/** A relation (Directus docs: Relations): the "many" side column holding the key. */
export interface RelationOverview {
  collection: string;
  field: string;
  related_collection: string | null;
  schema: {
    table: string;
    column: string;
    foreign_key_table: string;
    foreign_key_column: string;
    constraint_name: string | null;
    on_update: string | null;
    on_delete: string | null;
  } | null;
  meta: {
    id: number | null;
    many_collection: string;
    many_field: string;
    one_collection: string | null;
    one_field: string | null;
    one_collection_field: string | null;
    one_allowed_collections: string[] | null;
    junction_field: string | null;
    sort_field: string | null;
    one_deselect_action: 'nullify' | 'delete';
  } | null;
}

export interface SchemaOverview {
  /** Bumped on every rebuild; caches key on it. */
  version: number;
  collections: Record<string, CollectionOverview>;
  relations: RelationOverview[];
}
