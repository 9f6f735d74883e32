/**
 * The permission matrix: runs every case of every `*.cases.ts` file in this folder, on every database.
 *
 * Format (case-format.ts): a file exports `cases: MatrixCase[]`. A case names a role (roles.ts: own, published,
 * subset, none, public, admin), a request `{method (GET default), url, query (serialised with qs), body}` and what
 * must come back: `status` plus any of `error` (the error code), `body`, `data` (`unordered` for order-free
 * arrays), `ids` (keys of the rows, in order), `meta`, `absent` (fields that must not appear), `nullOn` (a field null
 * exactly on these rows), `sameBodyAs` (another request answering the very same bytes: existence never revealed)
 * and `check(body)` for anything else. `then` is a read made as admin after the request, for writes: what the
 * database holds afterwards. `$USER_ID(<role>)` in a url or a body (as a string) stands for that role's user id.
 *
 * Each file runs against its own fresh database (fixture + relations + roles), its cases in order: a write case
 * sees the effects of the earlier cases of its file, never those of another file.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import qs from 'qs';
import { createPolicy, createUserWithPolicies, grantPublic } from '../../helpers/access-fixture.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';
import { clientLabel, testClients } from '../../helpers/test-db.js';
import type { Expectation, MatrixCase, MatrixRequest } from './case-format.js';
import { MATRIX_ROLES, PUBLIC_PERMISSIONS, type RoleName } from './roles.js';
import { queryBuilder } from '../../../src/db/connection.js';

const folder = path.dirname(fileURLToPath(import.meta.url));
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.cases.ts'))
  .sort();
const tables = await Promise.all(
  files.map(async (file) => ({
    file,
    // By its .ts name: `npm test` bundles the folder's files under those names (esbuild), and tsx loads them so.
    cases: ((await import(`./${file}`)) as { cases: MatrixCase[] }).cases,
  })),
);

interface Matrix {
  tokens: Record<RoleName, string | null>;
  userIds: Record<string, string>;
}

async function setUpRoles(t: TestApp): Promise<Matrix> {
  const tokens = { public: null, admin: ADMIN.token } as Record<RoleName, string | null>;
  const admin = await queryBuilder(t.context.db)('service_users').select('id').where('email', ADMIN.email).first();
  const userIds: Record<string, string> = { admin: String(admin.id) };
  for (const [name, role] of Object.entries(MATRIX_ROLES)) {
    const policy = await createPolicy(t, {
      name: `matrix ${name}`,
      permissions: role.permissions,
      app_access: 'app_access' in role ? Boolean(role.app_access) : false,
    });
    const user = await createUserWithPolicies(t, [policy], { email: role.email });
    tokens[name as RoleName] = user.token;
    userIds[name] = user.id;
  }
  await grantPublic(t, PUBLIC_PERMISSIONS);
  return { tokens, userIds };
}

function placeholders(matrix: Matrix, text: string): string {
  return text.replace(/\$USER_ID\((\w+)\)/g, (_, role: string) => matrix.userIds[role] ?? 'no-such-user');
}

function send(t: TestApp, matrix: Matrix, token: string | null, request: MatrixRequest) {
  const search = request.query ? qs.stringify(request.query, { encodeValuesOnly: true }) : '';
  return t.request({
    method: (request.method ?? 'GET') as 'GET',
    url: placeholders(matrix, `${request.url}${search ? `?${search}` : ''}`),
    token,
    ...(request.body !== undefined
      ? { payload: JSON.parse(placeholders(matrix, JSON.stringify(request.body))) as object }
      : {}),
  });
}

const sortKey = (value: unknown) => JSON.stringify(value);

async function verify(
  t: TestApp,
  matrix: Matrix,
  token: string | null,
  request: MatrixRequest,
  expect: Expectation,
): Promise<void> {
  const response = await send(t, matrix, token, request);
  const context = `${request.method ?? 'GET'} ${request.url} ${JSON.stringify(request.query ?? {})} → ${response.statusCode} ${response.body}`;
  assert.equal(response.statusCode, expect.status, context);
  const body = response.body ? JSON.parse(response.body) : undefined;
  if (expect.error !== undefined) assert.equal(body?.errors?.[0]?.extensions?.code, expect.error, context);
  if (expect.body !== undefined) assert.deepEqual(body, expect.body, context);
  if (expect.data !== undefined) {
    if (expect.unordered) {
      assert.ok(Array.isArray(body.data), context);
      assert.deepEqual(
        [...body.data].sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
        [...(expect.data as unknown[])].sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
        context,
      );
    } else {
      assert.deepEqual(body.data, expect.data, context);
    }
  }
  const key = expect.key ?? 'id';
  const rows: Record<string, unknown>[] =
    body?.data === undefined ? [] : Array.isArray(body.data) ? body.data : [body.data];
  if (expect.ids !== undefined)
    assert.deepEqual(
      rows.map((row) => row[key]),
      expect.ids,
      context,
    );
  if (expect.meta !== undefined) assert.deepEqual(body.meta, expect.meta, context);
  for (const field of expect.absent ?? []) {
    assert.ok(rows.length > 0, `${context}: no rows to check "${field}" on`);
    for (const row of rows) assert.ok(!(field in row), `${context}: "${field}" present`);
  }
  if (expect.nullOn) {
    const { field, ids } = expect.nullOn;
    assert.deepEqual(
      rows.filter((row) => row[field] === null).map((row) => row[key]),
      ids,
      `${context}: rows where "${field}" is null`,
    );
  }
  if (expect.sameBodyAs) {
    const other = await send(t, matrix, token, expect.sameBodyAs);
    assert.equal(other.statusCode, response.statusCode, `${context} vs ${other.body}`);
    assert.equal(other.body, response.body, context);
  }
  expect.check?.(body);
}

for (const client of testClients()) {
  for (const { file, cases } of tables) {
    describe(`permission matrix ${file.replace(/\.cases\.ts$/, '')} (${clientLabel(client)})`, () => {
      let t: TestApp;
      let matrix: Matrix;
      before(async () => {
        t = await startTestApp(client, { relations: true });
        matrix = await setUpRoles(t);
      });
      after(async () => {
        await t?.close();
      });

      for (const c of cases) {
        it(`${c.role}: ${c.name}`, async () => {
          await verify(t, matrix, matrix.tokens[c.role], c.request, c.expect);
          if (c.then) await verify(t, matrix, ADMIN.token, c.then.request, c.then.expect);
        });
      }
    });
  }
}
