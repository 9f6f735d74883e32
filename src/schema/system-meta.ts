/**
 * What Directus declares for its own tables and Strata for the service_* ones: the special flags that conceal
 * secrets, and the relations (with their o2m alias fields) between the system collections. Merged into the
 * overview as if they were rows of service_fields / service_relations.
 */
import type { CollectionMeta } from './types.js';

/** The service_* collections served with items semantics (REST's system routes, GraphQL); the others are internal. */
export const ITEM_SYSTEM_COLLECTIONS: ReadonlySet<string> = new Set([
  'service_users',
  'service_roles',
  'service_policies',
  'service_access',
  'service_permissions',
  'service_settings',
  'service_files',
  'service_folders',
  'service_versions',
  'service_comments',
  'service_notifications',
  'service_flows',
  'service_operations',
  'service_presets',
]);

/**
 * The system collections admins may add fields of their own to (POST /fields/service_users...), as Directus opens
 * its user-facing ones: those served as items, where a custom field is read and written through the API. The
 * internal ones (sessions, activity, revisions, the schema metadata, migrations) stay closed.
 */
export const EXTENSIBLE_SYSTEM_COLLECTIONS: ReadonlySet<string> = new Set(
  [...ITEM_SYSTEM_COLLECTIONS].filter(
    (name) =>
      ![
        'service_versions',
        'service_comments',
        'service_notifications',
        'service_flows',
        'service_operations',
        'service_presets',
      ].includes(name),
  ),
);

/**
 * The columns Strata's migrations give those collections (src/db/migrations). They, and the built-in alias fields
 * of SYSTEM_FIELDS, are the system fields: /fields never changes them and snapshots never carry them; any other
 * field of these collections is an admin's own.
 */
const BUILT_IN_COLUMNS: Record<string, string> = {
  service_users:
    'id first_name last_name email password location title description tags avatar language tfa_secret status role ' +
    'token last_access last_page provider external_identifier auth_data email_notifications appearance theme_dark ' +
    'theme_light theme_light_overrides theme_dark_overrides text_direction',
  service_roles: 'id name icon description parent',
  service_policies: 'id name icon description ip_access enforce_tfa admin_access app_access',
  service_access: 'id role user policy sort',
  service_permissions: 'id collection action permissions validation presets fields policy',
  service_settings:
    'id project_name project_url project_color project_logo public_foreground public_background public_note ' +
    'auth_login_attempts auth_password_policy storage_asset_transform storage_asset_presets custom_css ' +
    'default_language project_descriptor default_appearance public_registration public_registration_verify_email ' +
    'public_registration_role public_registration_email_filter',
  service_files:
    'id storage filename_disk filename_download title type folder uploaded_by created_on modified_by modified_on ' +
    'charset filesize width height duration embed description location tags metadata focal_point_x focal_point_y ' +
    'tus_id tus_data uploaded_on',
  service_folders: 'id name parent',
  service_versions: 'id key name collection item hash date_created date_updated user_created user_updated delta',
  service_comments: 'id collection item comment date_created date_updated user_created user_updated',
  service_notifications: 'id timestamp status recipient sender subject message collection item',
  service_flows:
    'id name icon color description status trigger accountability options operation date_created user_created',
  service_operations: 'id name key type position_x position_y options resolve reject flow date_created user_created',
  service_presets:
    'id bookmark user role collection search layout layout_query layout_options refresh_interval filter icon color',
};

/** Keys and references held as uuid (char(36) on SQLite and MariaDB): typed uuid on every database. */
const UUID_COLUMNS: [string, string][] = [
  ['service_users', 'id'],
  ['service_users', 'role'],
  ['service_roles', 'id'],
  ['service_roles', 'parent'],
  ['service_policies', 'id'],
  ['service_access', 'id'],
  ['service_access', 'role'],
  ['service_access', 'user'],
  ['service_access', 'policy'],
  ['service_permissions', 'policy'],
  ['service_settings', 'project_logo'],
  ['service_settings', 'public_foreground'],
  ['service_settings', 'public_background'],
  ['service_settings', 'public_registration_role'],
  ['service_files', 'id'],
  ['service_files', 'folder'],
  ['service_folders', 'id'],
  ['service_folders', 'parent'],
  ...['service_versions', 'service_comments'].flatMap((c): [string, string][] => [
    [c, 'id'],
    [c, 'user_created'],
    [c, 'user_updated'],
  ]),
  ['service_activity', 'user'],
  ['service_notifications', 'recipient'],
  ['service_notifications', 'sender'],
  ...['id', 'operation', 'user_created'].map((f): [string, string] => ['service_flows', f]),
  ...['id', 'resolve', 'reject', 'flow', 'user_created'].map((f): [string, string] => ['service_operations', f]),
  ['service_presets', 'user'],
  ['service_presets', 'role'],
];

/** Who made and last changed a version or a comment, and when (the write specials fill them). */
const TRAIL_FIELDS = ['service_versions', 'service_comments'].flatMap((collection) => [
  { collection, field: 'date_created', special: 'date-created' },
  { collection, field: 'date_updated', special: 'date-updated' },
  { collection, field: 'user_created', special: 'user-created' },
  { collection, field: 'user_updated', special: 'user-updated' },
]);

export const SYSTEM_FIELDS: Record<string, unknown>[] = [
  ...UUID_COLUMNS.map(([collection, field]) => ({ collection, field, special: 'uuid' })),
  { collection: 'service_users', field: 'password', special: 'hash,conceal' },
  { collection: 'service_users', field: 'token', special: 'conceal' },
  { collection: 'service_users', field: 'tfa_secret', special: 'conceal' },
  { collection: 'service_users', field: 'auth_data', special: 'cast-json,conceal' },
  { collection: 'service_users', field: 'tags', special: 'cast-json' },
  { collection: 'service_settings', field: 'public_registration', special: 'cast-boolean' },
  { collection: 'service_settings', field: 'public_registration_verify_email', special: 'cast-boolean' },
  { collection: 'service_settings', field: 'public_registration_email_filter', special: 'cast-json' },
  { collection: 'service_users', field: 'email_notifications', special: 'cast-boolean' },
  { collection: 'service_users', field: 'policies', special: 'm2m' },
  { collection: 'service_roles', field: 'users', special: 'o2m' },
  { collection: 'service_roles', field: 'children', special: 'o2m' },
  { collection: 'service_roles', field: 'policies', special: 'm2m' },
  { collection: 'service_policies', field: 'permissions', special: 'o2m' },
  { collection: 'service_policies', field: 'roles', special: 'm2m' },
  { collection: 'service_policies', field: 'ip_access', special: 'cast-csv' },
  { collection: 'service_permissions', field: 'permissions', special: 'cast-json' },
  { collection: 'service_permissions', field: 'validation', special: 'cast-json' },
  { collection: 'service_permissions', field: 'presets', special: 'cast-json' },
  { collection: 'service_permissions', field: 'fields', special: 'cast-csv' },
  { collection: 'service_users', field: 'avatar', special: 'uuid,file' },
  { collection: 'service_settings', field: 'storage_asset_presets', special: 'cast-json' },
  { collection: 'service_files', field: 'uploaded_by', special: 'user-created' },
  { collection: 'service_files', field: 'created_on', special: 'date-created' },
  { collection: 'service_files', field: 'modified_by', special: 'user-updated' },
  { collection: 'service_files', field: 'modified_on', special: 'date-updated' },
  { collection: 'service_files', field: 'tags', special: 'cast-json' },
  { collection: 'service_files', field: 'metadata', special: 'cast-json' },
  { collection: 'service_files', field: 'tus_data', special: 'cast-json' },
  { collection: 'service_versions', field: 'delta', special: 'cast-json' },
  ...TRAIL_FIELDS,
  ...['service_flows', 'service_operations'].flatMap((collection) => [
    { collection, field: 'options', special: 'cast-json' },
    { collection, field: 'date_created', special: 'date-created' },
    { collection, field: 'user_created', special: 'user-created' },
  ]),
  { collection: 'service_flows', field: 'operations', special: 'o2m' },
  { collection: 'service_activity', field: 'revisions', special: 'o2m' },
  { collection: 'service_revisions', field: 'data', special: 'cast-json' },
  { collection: 'service_revisions', field: 'delta', special: 'cast-json' },
  ...['filter', 'layout_query', 'layout_options'].map((field) => ({
    collection: 'service_presets',
    field,
    special: 'cast-json',
  })),
].map((row, i) => ({ id: -1 - i, ...row }));

export const SYSTEM_RELATIONS: Record<string, unknown>[] = [
  { many_collection: 'service_users', many_field: 'role', one_collection: 'service_roles', one_field: 'users' },
  { many_collection: 'service_roles', many_field: 'parent', one_collection: 'service_roles', one_field: 'children' },
  {
    many_collection: 'service_access',
    many_field: 'role',
    one_collection: 'service_roles',
    one_field: 'policies',
    junction_field: 'policy',
  },
  {
    many_collection: 'service_access',
    many_field: 'user',
    one_collection: 'service_users',
    one_field: 'policies',
    junction_field: 'policy',
  },
  {
    many_collection: 'service_access',
    many_field: 'policy',
    one_collection: 'service_policies',
    one_field: 'roles',
    junction_field: 'role',
  },
  {
    many_collection: 'service_permissions',
    many_field: 'policy',
    one_collection: 'service_policies',
    one_field: 'permissions',
  },
  { many_collection: 'service_files', many_field: 'folder', one_collection: 'service_folders' },
  { many_collection: 'service_files', many_field: 'uploaded_by', one_collection: 'service_users' },
  { many_collection: 'service_files', many_field: 'modified_by', one_collection: 'service_users' },
  { many_collection: 'service_folders', many_field: 'parent', one_collection: 'service_folders' },
  { many_collection: 'service_users', many_field: 'avatar', one_collection: 'service_files' },
  { many_collection: 'service_settings', many_field: 'project_logo', one_collection: 'service_files' },
  { many_collection: 'service_settings', many_field: 'public_foreground', one_collection: 'service_files' },
  { many_collection: 'service_settings', many_field: 'public_background', one_collection: 'service_files' },
  ...['service_versions', 'service_comments'].flatMap((many_collection) =>
    ['user_created', 'user_updated'].map((many_field) => ({
      many_collection,
      many_field,
      one_collection: 'service_users',
      one_field: null,
    })),
  ),
  { many_collection: 'service_activity', many_field: 'user', one_collection: 'service_users', one_field: null },
  ...['recipient', 'sender'].map((many_field) => ({
    many_collection: 'service_notifications',
    many_field,
    one_collection: 'service_users',
    one_field: null,
  })),
  {
    many_collection: 'service_operations',
    many_field: 'flow',
    one_collection: 'service_flows',
    one_field: 'operations',
  },
  { many_collection: 'service_flows', many_field: 'operation', one_collection: 'service_operations', one_field: null },
  ...['resolve', 'reject'].map((many_field) => ({
    many_collection: 'service_operations',
    many_field,
    one_collection: 'service_operations',
    one_field: null,
  })),
  ...['service_flows', 'service_operations'].map((many_collection) => ({
    many_collection,
    many_field: 'user_created',
    one_collection: 'service_users',
    one_field: null,
  })),
  {
    many_collection: 'service_revisions',
    many_field: 'activity',
    one_collection: 'service_activity',
    one_field: 'revisions',
  },
  { many_collection: 'service_revisions', many_field: 'parent', one_collection: 'service_revisions', one_field: null },
  { many_collection: 'service_presets', many_field: 'user', one_collection: 'service_users', one_field: null },
  { many_collection: 'service_presets', many_field: 'role', one_collection: 'service_roles', one_field: null },
].map((row, i) => ({ id: null, ...row, sort: i }));

/**
 * The collection meta Directus lists its own collections with (`system: true`, an icon, accountability), for the
 * service_* tables, which have no service_collections row: clients that list /collections tell system collections
 * apart by it. Display only: a singleton here changes nothing in how the collection is served. No notes: the
 * OpenAPI document and the typed clients describe collections by their notes, and these have their own words there.
 */
const SYSTEM_COLLECTION_META: Record<string, Partial<CollectionMeta>> = {
  service_users: {
    icon: 'people_alt',
    archive_field: 'status',
    archive_value: 'archived',
    unarchive_value: 'draft',
    display_template: '{{ first_name }} {{ last_name }}',
  },
  service_roles: { icon: 'supervised_user_circle', note: 'Roles that group users and policies' },
  service_policies: { icon: 'admin_panel_settings', note: 'Access policies' },
  service_access: { icon: 'key', note: 'Policies attached to roles and users' },
  service_permissions: { icon: 'admin_panel_settings', note: 'Permission rules of the policies' },
  service_settings: { icon: 'tune', singleton: true },
  service_files: {
    icon: 'folder',
    note: 'Metadata of the files in storage',
    display_template: '{{ $thumbnail }} {{ title }}',
  },
  service_folders: { icon: 'folder', note: 'Folders that group files', display_template: '{{ name }}' },
  service_collections: { icon: 'list_alt', note: 'Collection metadata' },
  service_fields: { icon: 'input', note: 'Field metadata' },
  service_relations: { icon: 'merge_type', note: 'Relation metadata' },
  service_sessions: { icon: 'badge', note: 'Sessions and refresh tokens' },
  service_activity: { icon: 'access_time', accountability: null },
  service_revisions: { icon: 'change_history', accountability: null },
  service_versions: { icon: 'published_with_changes', note: 'Content versions of items' },
  service_comments: { icon: 'chat', note: 'Comments on items' },
  service_notifications: { icon: 'notifications', note: 'Notifications to users' },
  service_flows: { icon: 'bolt', note: 'Flows: a trigger and the operations it runs' },
  service_operations: { icon: 'account_tree', note: 'The operations of the flows' },
  // As Directus: a view saved as it changes is no activity to keep.
  service_presets: { icon: 'bookmark', note: 'Saved views and bookmarks of collections', accountability: null },
  service_flow_deliveries: { icon: 'outbox', hidden: true, accountability: null },
  service_migrations: { icon: 'history', hidden: true, accountability: null },
  service_schema_journal: { icon: 'history', hidden: true, accountability: null },
  service_account_tokens: { icon: 'key', hidden: true, accountability: null, note: 'One-time tokens sent by mail' },
  service_schedule_runs: { icon: 'schedule', hidden: true, accountability: null },
  service_sign_on_flows: { icon: 'login', hidden: true, accountability: null },
};

export function systemCollectionMeta(collection: string): CollectionMeta & { system: true } {
  return {
    collection,
    icon: null,
    note: null,
    display_template: null,
    hidden: false,
    singleton: false,
    translations: null,
    archive_field: null,
    archive_app_filter: true,
    archive_value: null,
    unarchive_value: null,
    sort_field: null,
    accountability: 'all',
    color: null,
    item_duplication_fields: null,
    sort: null,
    group: null,
    collapse: 'open',
    preview_url: null,
    versioning: false,
    ...SYSTEM_COLLECTION_META[collection],
    system: true,
  };
}

const BUILT_IN_FIELDS = new Map<string, ReadonlySet<string>>(
  Object.entries(BUILT_IN_COLUMNS).map(([collection, columns]) => [
    collection,
    new Set([
      ...columns.split(' '),
      ...SYSTEM_FIELDS.filter((row) => row.collection === collection).map((row) => String(row.field)),
    ]),
  ]),
);

/** A field of a system collection that an admin added (not one of Strata's own). */
export function isCustomSystemField(collection: string, field: string): boolean {
  const builtIn = BUILT_IN_FIELDS.get(collection);
  return builtIn !== undefined && !builtIn.has(field);
}

/**
 * A field with the `file` special (Directus's file and image interfaces) is a many-to-one to service_files even when
 * no service_relations row says so: the relation Directus's app would have created with it.
 */
export function impliedFileRelations(
  fields: Record<string, unknown>[],
  ownRelations: ReadonlySet<string>,
): Record<string, unknown>[] {
  return fields
    .filter(
      (row) =>
        String(row.special ?? '')
          .split(/[^a-z0-9-]+/i)
          .includes('file') && !ownRelations.has(`${row.collection}\u0000${row.field}`),
    )
    .map((row) => ({
      id: null,
      many_collection: row.collection,
      many_field: row.field,
      one_collection: 'service_files',
      sort: null,
    }));
}
