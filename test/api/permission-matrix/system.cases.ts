/**
 * Read cases over the system collections (/users, /roles, /policies, /access, /permissions, /settings): app access
 * grants one's own user (some fields), roles, policies, access rows and permissions, and the settings (reference
 * §4.2, §0.7); nobody else reads them without a permission. The users are those of roles.ts plus the admin.
 */
import type { MatrixCase } from './case-format.js';

const FORBIDDEN = { status: 403, error: 'FORBIDDEN' } as const;

export const cases: MatrixCase[] = [
  {
    name: 'lists her own user only',
    role: 'app',
    request: { url: '/users', query: { fields: 'email' } },
    expect: { status: 200, data: [{ email: 'app@example.com' }] },
  },
  {
    name: 'another user answers like a missing one',
    role: 'app',
    request: { url: '/users/$USER_ID(admin)' },
    expect: { ...FORBIDDEN, sameBodyAs: { url: '/users/00000000-0000-4000-8000-000000000000' } },
  },
  {
    name: 'her own user by key',
    role: 'app',
    request: { url: '/users/$USER_ID(app)', query: { fields: 'email,status' } },
    expect: { status: 200, data: { email: 'app@example.com', status: 'active' } },
  },
  {
    name: '/users/me',
    role: 'app',
    request: { url: '/users/me', query: { fields: 'email,tfa_secret' } },
    expect: { status: 200, data: { email: 'app@example.com', tfa_secret: null } },
  },
  {
    name: 'a filter on another user’s email matches nothing',
    role: 'app',
    request: { url: '/users', query: { filter: { email: { _eq: 'admin@example.com' } } } },
    expect: { status: 200, data: [] },
  },
  {
    name: 'search never finds another user',
    role: 'app',
    request: { url: '/users', query: { search: 'admin', fields: 'email' } },
    expect: { status: 200, data: [] },
  },
  {
    name: 'the password is not readable',
    role: 'app',
    request: { url: '/users/me', query: { fields: 'password' } },
    expect: FORBIDDEN,
  },
  {
    name: 'the static token is not readable',
    role: 'app',
    request: { url: '/users', query: { fields: 'token' } },
    expect: FORBIDDEN,
  },
  {
    name: 'nor filterable',
    role: 'app',
    request: { url: '/users', query: { filter: { token: { _nnull: true } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'counts see her own user only',
    role: 'app',
    request: { url: '/users', query: { fields: 'email', meta: '*' } },
    expect: { status: 200, meta: { total_count: 1, filter_count: 1 } },
  },
  {
    name: 'aggregates too',
    role: 'app',
    request: { url: '/users', query: { aggregate: { count: '*' } } },
    expect: { status: 200, data: [{ count: 1 }] },
  },
  {
    name: 'her policy only',
    role: 'app',
    request: { url: '/policies', query: { fields: 'name,app_access,admin_access' } },
    expect: { status: 200, data: [{ name: 'matrix app', app_access: true, admin_access: false }] },
  },
  {
    name: 'her policy’s permissions only',
    role: 'app',
    request: { url: '/permissions', query: { fields: 'collection,action,fields' } },
    expect: { status: 200, data: [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }] },
  },
  {
    name: 'her role only',
    role: 'app',
    request: { url: '/roles', query: { fields: 'id', meta: 'total_count' } },
    expect: { status: 200, meta: { total_count: 1 } },
  },
  {
    name: 'her access rows only',
    role: 'app',
    request: { url: '/access', query: { aggregate: { count: '*' } } },
    expect: { status: 200, data: [{ count: 1 }] },
  },
  {
    name: 'the settings',
    role: 'app',
    request: { url: '/settings', query: { fields: 'auth_login_attempts' } },
    expect: { status: 200, data: { auth_login_attempts: 25 } },
  },
  {
    name: 'her drafts',
    role: 'app',
    request: { url: '/items/articles' },
    expect: { status: 200, data: [{ id: 3, title: 'Draft Ideas' }] },
  },
  { name: 'system tables are not items', role: 'app', request: { url: '/items/service_users' }, expect: FORBIDDEN },

  { name: 'no app access: no users', role: 'own', request: { url: '/users' }, expect: FORBIDDEN },
  { name: 'no app access: not even her own', role: 'own', request: { url: '/users/me' }, expect: FORBIDDEN },
  { name: 'no app access: no roles', role: 'published', request: { url: '/roles' }, expect: FORBIDDEN },
  { name: 'no app access: no settings', role: 'none', request: { url: '/settings' }, expect: FORBIDDEN },
  {
    name: 'no app access: no permissions',
    role: 'subset',
    request: { url: '/permissions', query: { aggregate: { count: '*' } } },
    expect: FORBIDDEN,
  },
  {
    name: 'the public has no user',
    role: 'public',
    request: { url: '/users/me' },
    expect: { status: 401, error: 'INVALID_CREDENTIALS' },
  },
  {
    name: 'the public reads no users',
    role: 'public',
    request: { url: '/users', query: { fields: 'email' } },
    expect: FORBIDDEN,
  },
  { name: 'the public reads no policies', role: 'public', request: { url: '/policies' }, expect: FORBIDDEN },

  {
    name: 'admin reads every user',
    role: 'admin',
    request: { url: '/users', query: { fields: 'email', sort: 'email' } },
    expect: {
      status: 200,
      data: ['ada', 'admin', 'app', 'none', 'published', 'subset'].map((name) => ({ email: `${name}@example.com` })),
    },
  },
  {
    name: 'admin sees the token concealed',
    role: 'admin',
    request: { url: '/users/$USER_ID(app)', query: { fields: 'token,password' } },
    expect: { status: 200, data: { token: '**********', password: null } },
  },
];
