/**
 * The minimal permissions every user with app access has on the system collections (Directus docs: Access control and API reference):
 * reading the schema metadata (collections, fields, relations: what each shows is cut down to what the caller may
 * read, schema-access.ts), their own activity, their own user, their roles and policies and what those hold, and the
 * project settings; updating their own profile (Directus's app-access minimal permissions — never their role,
 * status, policies, token or TFA secret, which only an admin or an explicit permission may change); and their own
 * comments (read, write, delete) and new comments on items they may read; the presets and bookmarks that are theirs,
 * their role's or everyone's (read) and their own (write); and the manual flows.
 */
import { parseFilter } from '../request/parse-filter.js';
import type { PermissionRule } from './permission-rule.js';

const OWN_USER_FIELDS = [
  'id',
  'first_name',
  'last_name',
  'email',
  'location',
  'title',
  'description',
  'tags',
  'avatar',
  'language',
  'tfa_secret',
  'status',
  'role',
  'last_access',
  'last_page',
  'provider',
  'email_notifications',
  'appearance',
  'theme_dark',
  'theme_light',
  'policies',
];

/** Directus's list, less `tfa_secret`: TFA is switched through /users/me/tfa/*, which checks the OTP. */
const OWN_PROFILE_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'password',
  'location',
  'title',
  'description',
  'avatar',
  'language',
  'appearance',
  'theme_dark',
  'theme_light',
  'theme_light_overrides',
  'theme_dark_overrides',
];

function rule(
  action: PermissionRule['action'],
  collection: string,
  fields: string[] | '*',
  permissions: Record<string, unknown> | null,
  validation: Record<string, unknown> | null = null,
  presets: Record<string, unknown> | null = null,
): PermissionRule {
  return {
    policy: '$app',
    collection,
    action,
    fields,
    permissions: permissions ? parseFilter(permissions) : null,
    validation: validation ? parseFilter(validation) : null,
    // Payloads are checked against the rule as written (its variables resolved per request), as for stored rules.
    rawValidation: validation,
    presets,
  };
}

function read(collection: string, fields: string[] | '*', permissions: Record<string, unknown> | null): PermissionRule {
  return rule('read', collection, fields, permissions);
}

const OWN_COMMENTS = { user_created: { _eq: '$CURRENT_USER' } };
const OWN_NOTIFICATIONS = { recipient: { _eq: '$CURRENT_USER' } };
const OWN_PRESETS = { user: { _eq: '$CURRENT_USER' } };
/** Directus's: a user's own presets, their role's and everyone's (those naming no user). */
const SHOWN_PRESETS = {
  _or: [
    OWN_PRESETS,
    { _and: [{ user: { _null: true } }, { role: { _eq: '$CURRENT_ROLE' } }] },
    { _and: [{ user: { _null: true } }, { role: { _null: true } }] },
  ],
};

export const APP_ACCESS_RULES: PermissionRule[] = [
  {
    policy: '$app',
    collection: 'service_users',
    action: 'update',
    fields: OWN_PROFILE_FIELDS,
    permissions: parseFilter({ id: { _eq: '$CURRENT_USER' } }),
    validation: null,
    presets: null,
  },
  read('service_users', OWN_USER_FIELDS, { id: { _eq: '$CURRENT_USER' } }),
  read('service_roles', '*', { id: { _in: '$CURRENT_ROLES' } }),
  read('service_policies', '*', { id: { _in: '$CURRENT_POLICIES' } }),
  read('service_access', '*', { _or: [{ user: { _eq: '$CURRENT_USER' } }, { role: { _in: '$CURRENT_ROLES' } }] }),
  read('service_permissions', '*', { policy: { _in: '$CURRENT_POLICIES' } }),
  read('service_settings', '*', null),
  // Directus's schema access: these open /collections, /fields and /relations and list the metadata collections there.
  read('service_collections', '*', null),
  read('service_fields', '*', null),
  read('service_relations', '*', null),
  read('service_activity', '*', { user: { _eq: '$CURRENT_USER' } }),
  // Directus's comment rules: a user reads, edits and deletes their own comments and comments on items they may
  // read (the comments guard checks the item); reading others' comments takes a policy's rule. Versions: none.
  read('service_comments', '*', OWN_COMMENTS),
  rule('create', 'service_comments', '*', null, { comment: { _nnull: true } }),
  rule('update', 'service_comments', ['comment'], OWN_COMMENTS),
  rule('delete', 'service_comments', '*', OWN_COMMENTS),
  // Directus's: a user reads their own notifications and moves them between inbox and archived.
  read('service_notifications', '*', OWN_NOTIFICATIONS),
  rule('update', 'service_notifications', ['status'], OWN_NOTIFICATIONS, {
    status: { _in: ['inbox', 'archived'] },
  }),
  // Directus's preset rules: a user reads theirs, their role's and the global ones, and writes only their own. A
  // create that names no user is the caller's (a preset under the payload): never, by omission, one for everyone.
  read('service_presets', '*', SHOWN_PRESETS),
  rule('create', 'service_presets', '*', null, OWN_PRESETS, { user: '$CURRENT_USER' }),
  rule('update', 'service_presets', '*', OWN_PRESETS, OWN_PRESETS),
  rule('delete', 'service_presets', '*', OWN_PRESETS),
  // Directus's: app users see the manual flows (Studio offers them on item pages), not their operations.
  read('service_flows', ['id', 'status', 'name', 'icon', 'color', 'options', 'trigger'], {
    trigger: { _eq: 'manual' },
  }),
];
