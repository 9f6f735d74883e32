/**
 * Who is signed in and what the API says they may see and do. Everything the app hides or locks is decided here
 * from the API's own answers (/permissions/me, /policies/me/globals, /collections, /fields, /relations): the app
 * keeps no second copy of the permission rules.
 */
import { reactive } from 'vue';
import {
  readCollections,
  readFields,
  readMe,
  readPolicyGlobals,
  readRelations,
  readSettings,
  readUserPermissions,
} from '@directus/sdk';
import { client } from './api';
import { formatTitle, pickTranslation } from './i18n';
import { latestOnly } from './latest';

export type Action = 'create' | 'read' | 'update' | 'delete';

export interface Collection {
  collection: string;
  meta: {
    icon?: string | null;
    note?: string | null;
    hidden?: boolean;
    singleton?: boolean;
    sort?: number | null;
    group?: string | null;
    sort_field?: string | null;
    display_template?: string | null;
    versioning?: boolean;
  } | null;
  schema: { name: string } | null;
}

export interface Field {
  collection: string;
  field: string;
  type: string;
  meta: {
    interface?: string | null;
    options?: Record<string, any> | null;
    special?: string[] | null;
    readonly?: boolean;
    hidden?: boolean;
    required?: boolean;
    sort?: number | null;
    width?: string | null;
    note?: string | null;
    translations?: { language: string; translation: string }[] | null;
    validation_message?: string | null;
  } | null;
  schema: {
    default_value?: unknown;
    is_nullable?: boolean;
    is_unique?: boolean;
    is_primary_key?: boolean;
    has_auto_increment?: boolean;
    max_length?: number | null;
    numeric_precision?: number | null;
    numeric_scale?: number | null;
    foreign_key_table?: string | null;
  } | null;
}

export interface Relation {
  collection: string;
  field: string;
  related_collection: string | null;
  meta: {
    one_field?: string | null;
    junction_field?: string | null;
    sort_field?: string | null;
    one_allowed_collections?: string[] | null;
    one_collection_field?: string | null;
    one_deselect_action?: string;
  } | null;
}

interface ActionAccess {
  access: 'none' | 'partial' | 'full';
  fields?: string[];
}

export const session = reactive({
  /** null: not known yet (first load); false: signed out. */
  user: null as
    | null
    | false
    | {
        id: string;
        email: string;
        first_name?: string | null;
        last_name?: string | null;
        language?: string | null;
      },
  admin: false,
  projectName: 'Strata',
  permissions: {} as Record<string, Partial<Record<Action, ActionAccess>>>,
  collections: [] as Collection[],
  fields: [] as Field[],
  relations: [] as Relation[],
  /** The schema above has been read once for this user (views build their forms from it when they open). */
  schemaLoaded: false,
});

/** Reads who is signed in (the session cookie survives reloads); false when nobody is. */
export async function loadSession(): Promise<void> {
  try {
    session.user = (await client.request(
      readMe({ fields: ['id', 'email', 'first_name', 'last_name', 'language'] }),
    )) as any;
  } catch {
    session.user = false;
    return;
  }
  try {
    await loadSchema();
  } finally {
    // A failed read shows the app with what it has (and the views' own errors), not an endless "Loading…".
    session.schemaLoaded = true;
  }
}

/** Collections, fields, relations and the caller's permissions; reloaded after every data-model change. */
const beginSchemaLoad = latestOnly();

/**
 * Reads the caller's schema and access, and shows them all at once when this is still the latest load. Nothing is
 * awaited after the page changes: a caller that awaits this (a form that closes once its change is saved) goes on
 * before anyone can act on the page, where an await left in between once showed the saved field with its form still
 * open, and closed the form a click had just asked for again.
 */
export async function loadSchema(): Promise<void> {
  const current = beginSchemaLoad();
  const [globals, permissions, collections, fields, relations, settings] = await Promise.all([
    client.request(readPolicyGlobals()),
    client.request(readUserPermissions()),
    client.request(readCollections()),
    client.request(readFields()),
    client.request(readRelations()),
    // Settings are not readable by everyone; the default name stays then.
    client.request(readSettings({ fields: ['project_name'] })).catch(() => null),
  ]);
  if (!current()) return;
  session.admin = Boolean((globals as any).admin_access);
  session.permissions = permissions as any;
  session.collections = collections as any;
  session.fields = fields as any;
  session.relations = relations as any;
  if ((settings as any)?.project_name) session.projectName = (settings as any).project_name;
  session.schemaLoaded = true;
  document.title = `${session.projectName} · Studio`;
}

export async function signIn(email: string, password: string, otp?: string): Promise<void> {
  await client.login(email, password, otp ? { otp } : {});
  await loadSession();
}

/**
 * Signs in at a provider that takes credentials itself (a directory, the `ldap` driver): its own login route, in
 * session mode, with `{identifier, password, otp?}` (the SDK's login sends an email instead).
 */
export async function signInWithProvider(
  provider: string,
  identifier: string,
  password: string,
  otp?: string,
): Promise<void> {
  const response = await fetch(`/auth/login/${encodeURIComponent(provider)}`, {
    method: 'POST',
    credentials: 'include',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier, password, mode: 'session', ...(otp ? { otp } : {}) }),
  });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    // The shape of the SDK's rejections, so one error reader serves both forms.
    throw { errors: body?.errors ?? `Sign-in failed (${response.status})` };
  }
  await loadSession();
}

export async function signOut(): Promise<void> {
  try {
    await client.logout();
  } finally {
    session.user = false;
    session.admin = false;
    session.permissions = {};
    session.collections = [];
    session.fields = [];
    session.relations = [];
    session.schemaLoaded = false;
  }
}

export function can(collection: string, action: Action): boolean {
  if (session.admin) return true;
  const access = session.permissions[collection]?.[action]?.access;
  return access === 'full' || access === 'partial';
}

/** Whether the caller's rules for `action` on `collection` cover `field`. */
export function canField(collection: string, field: string, action: Action): boolean {
  if (session.admin) return true;
  const fields = session.permissions[collection]?.[action]?.fields;
  if (!fields || !can(collection, action)) return false;
  return fields.includes('*') || fields.includes(field);
}

export const isSystem = (name: string) => name.startsWith('service_');

/** The user collections the caller may read (schema-less folders included), in the order of their meta. */
export function userCollections(): Collection[] {
  return session.collections.filter((c) => !isSystem(c.collection) && (c.schema === null || can(c.collection, 'read')));
}

export function fieldsOf(collection: string): Field[] {
  return session.fields
    .filter((f) => f.collection === collection)
    .sort((a, b) => (a.meta?.sort ?? 1e9) - (b.meta?.sort ?? 1e9));
}

export function primaryKey(collection: string): string {
  return fieldsOf(collection).find((f) => f.schema?.is_primary_key)?.field ?? 'id';
}

/** The key columns (several for a composite key, none for a key-less table or a view), in the table's column order. */
export function keyFields(collection: string): string[] {
  return session.fields.filter((f) => f.collection === collection && f.schema?.is_primary_key).map((f) => f.field);
}

/**
 * An item's key as the API addresses it: its value, or for a composite key the columns' values joined by commas
 * (a comma or percent sign inside a value written `%2C` / `%25`); null when the table has no key.
 */
export function itemKey(collection: string, item: Record<string, unknown>): string | null {
  const keys = keyFields(collection);
  if (!keys.length) return null;
  // A key column that is also a many-to-one may have been read as the related item (for its display template).
  const value = (k: string): string => {
    const v = item[k];
    const relation = v && typeof v === 'object' ? relationOf(collection, k) : null;
    return String(relation?.type === 'm2o' ? (v as Record<string, unknown>)[primaryKey(relation.related)] : v);
  };
  if (keys.length === 1) return value(keys[0]!);
  return keys.map((k) => value(k).replace(/[%,]/g, (c) => (c === '%' ? '%25' : '%2C'))).join(',');
}

/** The user's language: their account's, else the browser's (names, dates and numbers follow it). */
export function language(): string {
  return (session.user && session.user.language) || navigator.language || 'en-US';
}

/** A field's label: its meta translation for the user's language, else Directus's title-casing of its name. */
export function label(field: Pick<Field, 'field' | 'meta'>): string {
  return pickTranslation(field.meta?.translations, language())?.translation || formatTitle(field.field);
}

export type RelationInfo =
  | { type: 'm2o'; related: string }
  | { type: 'o2m'; related: string; foreignKey: string; sortField: string | null }
  | {
      type: 'm2m';
      junction: string;
      foreignKey: string;
      junctionField: string;
      related: string;
      sortField: string | null;
    }
  | {
      type: 'm2a';
      junction: string;
      foreignKey: string;
      itemField: string;
      collectionField: string;
      allowed: string[];
      sortField: string | null;
    };

/** What a field links to, read from /relations (m2o from its own row, o2m/m2m/m2a from the row naming it as one_field). */
export function relationOf(collection: string, field: string): RelationInfo | null {
  const own = session.relations.find((r) => r.collection === collection && r.field === field && r.related_collection);
  if (own) return { type: 'm2o', related: own.related_collection! };
  const reverse = session.relations.find((r) => r.related_collection === collection && r.meta?.one_field === field);
  if (!reverse) return null;
  const junctionField = reverse.meta?.junction_field;
  const sortField = reverse.meta?.sort_field ?? null;
  if (!junctionField) return { type: 'o2m', related: reverse.collection, foreignKey: reverse.field, sortField };
  const other = session.relations.find((r) => r.collection === reverse.collection && r.field === junctionField);
  if (other?.related_collection) {
    return {
      type: 'm2m',
      junction: reverse.collection,
      foreignKey: reverse.field,
      junctionField,
      related: other.related_collection,
      sortField,
    };
  }
  if (other?.meta?.one_allowed_collections) {
    return {
      type: 'm2a',
      junction: reverse.collection,
      foreignKey: reverse.field,
      itemField: junctionField,
      collectionField: other.meta.one_collection_field ?? 'collection',
      allowed: other.meta.one_allowed_collections,
      sortField,
    };
  }
  return null;
}
