/**
 * What one caller's schema shows: per collection, the fields it may read and the writes it may make. Admins see
 * every collection with a table; others what their read rules grant (field lists joined across rules). A write
 * shows where the writer says the caller may make it (a writable collection and, for non-admins, a rule for the
 * action); the writer still checks every write. A collection the caller may write but not read (a policy that may
 * only create in it) is in the view too, with `read: false`: its writes show, nothing that reads it does.
 */
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { WriteAction } from '../plan/write-access.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../schema/system-meta.js';
import type { CollectionOverview, SchemaOverview } from '../schema/types.js';

export interface CollectionView {
  collection: CollectionOverview;
  /** GraphQL type name: the collection's name, service_* tables without their prefix. */
  typeName: string;
  /** The fields the caller may read: none when `read` is false. */
  fields: string[];
  /** The caller may read the collection (else only write it). */
  read: boolean;
  /** Fields the caller's rules let it write, per action; null = every field. */
  writeFields: { create: Set<string> | null; update: Set<string> | null };
  create: boolean;
  update: boolean;
  delete: boolean;
}

export type AccessView = Map<string, CollectionView>;

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * Collection names that would clash with the types every schema holds or generates (a clash would make the whole
 * schema unbuildable): such collections are left out of GraphQL, as are names GraphQL reserves (`__*`).
 */
const RESERVED_TYPES = new Set([
  'Query',
  'Mutation',
  'Subscription',
  'EventEnum',
  'String',
  'Int',
  'Float',
  'Boolean',
  'ID',
  'JSON',
  'Date',
  'Hash',
  'Void',
  'GraphQLBigInt',
  'GraphQLGeoJSON',
  'GraphQLStringOrFloat',
  'delete_one',
  'delete_many',
  'auth_tokens',
  'auth_mode',
  'policies_me_globals',
  'users_me_tfa_generate_data',
  'graphql_sdl_scope',
  'delete_collection',
  'delete_field',
]);
const RESERVED_SUFFIXES = [
  '_filter',
  '_input',
  '_aggregated',
  '_aggregated_count',
  '_aggregated_fields',
  '_union',
  '_functions',
  '_filter_operators',
];

export function usableTypeName(name: string): boolean {
  return (
    NAME.test(name) &&
    !name.startsWith('__') &&
    !RESERVED_TYPES.has(name) &&
    !RESERVED_SUFFIXES.some((suffix) => name.endsWith(suffix))
  );
}

const SYSTEM_PREFIX = 'service_';

export function typeNameOf(schema: SchemaOverview, collection: CollectionOverview): string {
  if (!collection.system || !collection.collection.startsWith(SYSTEM_PREFIX)) return collection.collection;
  const stripped = collection.collection.slice(SYSTEM_PREFIX.length);
  return schema.collections[stripped] ? collection.collection : stripped;
}

/** System collections that are singletons whatever their metadata says (REST's /settings reads and writes one row). */
export const SYSTEM_SINGLETONS = new Set(['service_settings']);

/**
 * `writable(collection, action)` asks the writer whether this caller may write so (ItemsWriter.canWrite).
 * `names: 'any'` keeps collections and fields whose names GraphQL cannot carry (the OpenAPI document serves them).
 */
export function buildAccessView(
  schema: SchemaOverview,
  accountability: Pick<Accountability, 'admin'>,
  permissions: PermissionSet | null,
  writable: (collection: CollectionOverview, action: WriteAction) => boolean,
  names: 'graphql' | 'any' = 'graphql',
): AccessView {
  const view: AccessView = new Map();
  const usableField = names === 'any' ? () => true : (name: string) => NAME.test(name) && !name.startsWith('__');
  for (const collection of Object.values(schema.collections)) {
    if (!collection.schema || (names === 'graphql' && !usableTypeName(typeNameOf(schema, collection)))) continue;
    if (collection.system && !ITEM_SYSTEM_COLLECTIONS.has(collection.collection) && !auditRead(collection)) continue;
    const fields = readableFields(collection, accountability.admin, permissions).filter(
      (name) => usableField(name) && collection.fields[name],
    );
    const singleton = collection.singleton || SYSTEM_SINGLETONS.has(collection.collection);
    const writeFields = {
      create: writeFieldsOf(permissions, accountability.admin, collection.collection, 'create'),
      update: writeFieldsOf(permissions, accountability.admin, collection.collection, 'update'),
    };
    const may = (action: WriteAction) =>
      collection.keyFields.length > 0 &&
      writable(collection, action) &&
      (action === 'delete' || writeFields[action]?.size !== 0);
    const entry: CollectionView = {
      collection,
      typeName: typeNameOf(schema, collection),
      fields,
      read: fields.length > 0,
      writeFields,
      create: may('create') && !singleton,
      update: may('update'),
      delete: may('delete') && !singleton,
    };
    if (entry.read || entry.create || entry.update || entry.delete) view.set(collection.collection, entry);
  }
  return view;
}

/**
 * The audit trail on /graphql/system (read-only: the writer refuses writes to it), under the caller's rules. A
 * non-admin's revisions are judged item by item by their root resolver (engine/read/revision-access.ts); their rules
 * never grant the relations that would reach revisions past it (permissions/audit-read-fields.ts).
 */
function auditRead(collection: CollectionOverview): boolean {
  return collection.collection === 'service_activity' || collection.collection === 'service_revisions';
}

/** The fields the caller's read rules grant (joined across rules), in the collection's order; none without a rule. */
function readableFields(collection: CollectionOverview, admin: boolean, permissions: PermissionSet | null): string[] {
  if (admin || !permissions) return collection.fieldOrder;
  if (!permissions.for(collection.collection, 'read').length) return [];
  const granted = permissions.fields(collection.collection, 'read');
  return collection.fieldOrder.filter((name) => granted === '*' || granted.has(name));
}

/** Whether the caller may read `collection` (its types, filters and relations to it show). */
export function readable(view: AccessView, collection: string): boolean {
  return view.get(collection)?.read === true;
}

function writeFieldsOf(
  permissions: PermissionSet | null,
  admin: boolean,
  collection: string,
  action: 'create' | 'update',
): Set<string> | null {
  if (admin || !permissions) return null;
  const fields = permissions.fields(collection, action);
  return fields === '*' ? null : fields;
}
