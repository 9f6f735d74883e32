/**
 * Bootstrap on every database: a fresh database gets the system tables through recorded migrations, the
 * Administrator role and policy, the Public policy and the first admin; a second run only migrates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readConfig } from '../../src/config/config.js';
import { queryBuilder, Database } from '../../src/db/connection.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { AccountabilityResolver } from '../../src/auth/accountability-resolver.js';
import { LoginAttempts } from '../../src/auth/login-attempts.js';
import { AuthService } from '../../src/auth/auth-service.js';
import { bootstrap, PUBLIC_POLICY_ID } from '../../src/app/bootstrap.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const SYSTEM_TABLES = [
  'service_collections',
  'service_fields',
  'service_relations',
  'service_users',
  'service_roles',
  'service_policies',
  'service_access',
  'service_permissions',
  'service_sessions',
  'service_settings',
  'service_activity',
  'service_revisions',
  'service_versions',
  'service_comments',
  'service_migrations',
];
const SECRET = 'bootstrap-test-secret-0123456789';
const quiet = { info: () => {} };

for (const client of testClients()) {
  describe(`bootstrap (${clientLabel(client)})`, () => {
    let testDb: TestDb;
    let db: Database;
    before(async () => {
      testDb = await createTestDatabase(client, { fixture: false });
    });
    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    it('installs a fresh database and generates a password when none is given', async () => {
      const config = readConfig({
        ...testDb.env,
        ADMIN_EMAIL: 'first@example.com',
        ADMIN_TOKEN: 'first-token',
        LOGIN_STALL_TIME: '0',
      });
      db = new Database(config.db);
      const result = await bootstrap(db, config, quiet);
      assert.equal(result.installed, true);
      assert.deepEqual(
        result.migrations,
        MIGRATIONS.map((m) => m.version),
      );
      assert.ok(result.generatedPassword && result.generatedPassword.length >= 16);
      for (const table of SYSTEM_TABLES) assert.ok(await queryBuilder(db).schema.hasTable(table), table);
      const migrations = await queryBuilder(db)('service_migrations').select('version');
      assert.deepEqual(
        migrations.map((m) => m.version),
        MIGRATIONS.map((m) => m.version),
      );

      const policies = await queryBuilder(db)('service_policies')
        .select('id', 'name', 'admin_access', 'app_access')
        .orderBy('name');
      assert.equal(policies.length, 2);
      const admin = policies.find((p) => p.name === 'Administrator')!;
      assert.ok(admin.admin_access && admin.app_access);
      const pub = policies.find((p) => p.id === PUBLIC_POLICY_ID)!;
      assert.ok(!pub.admin_access && !pub.app_access);
      const access = await queryBuilder(db)('service_access').select('role', 'user', 'policy');
      assert.equal(access.length, 2);
      assert.ok(access.some((a) => a.policy === PUBLIC_POLICY_ID && a.role === null && a.user === null));
      assert.equal(
        await queryBuilder(db)('service_permissions')
          .count({ n: '*' })
          .first()
          .then((r) => Number(r!.n)),
        0,
      );

      const auth = new AuthService(db, SECRET, config, new LoginAttempts(null, 'strata'));
      const login = (
        await auth.login(
          { email: 'first@example.com', password: result.generatedPassword! },
          { ip: '127.0.0.1', userAgent: null },
        )
      ).data;
      assert.equal(typeof login.access_token, 'string');
      const resolver = new AccountabilityResolver(db, SECRET);
      const fromJwt = await resolver.resolve(login.access_token as string, '127.0.0.1');
      const fromStatic = await resolver.resolve('first-token', null);
      assert.equal(fromJwt.admin, true);
      assert.equal(fromJwt.user, fromStatic.user);
      assert.equal(fromStatic.admin, true);
      const anonymous = await resolver.resolve(null, null);
      assert.deepEqual([anonymous.user, anonymous.admin, anonymous.policies], [null, false, [PUBLIC_POLICY_ID]]);
      const stored = await queryBuilder(db)('service_users').select('password').first();
      assert.match(stored!.password, /^\$argon2id\$/);
    });

    it('only migrates on a second run: no second admin, no reapplied migrations', async () => {
      const config = readConfig({
        ...testDb.env,
        ADMIN_EMAIL: 'second@example.com',
        ADMIN_PASSWORD: 'another-password',
      });
      const result = await bootstrap(db, config, quiet);
      assert.deepEqual(result, { installed: false, migrations: [] });
      const users = await queryBuilder(db)('service_users').select('email');
      assert.deepEqual(
        users.map((u) => u.email),
        ['first@example.com'],
      );
    });
  });

  describe(`bootstrap of instances started together (${clientLabel(client)})`, () => {
    let testDb: TestDb;
    const dbs: Database[] = [];
    before(async () => {
      testDb = await createTestDatabase(client, { fixture: false });
    });
    after(async () => {
      await Promise.all(dbs.map((db) => db.close()));
      await testDb?.drop();
    });

    it('one installs and migrates; the others wait and find it done (no duplicate table, role or admin)', async () => {
      const config = readConfig({ ...testDb.env, ADMIN_EMAIL: 'together@example.com', ADMIN_PASSWORD: 'pw-together' });
      for (let i = 0; i < 3; i++) dbs.push(new Database(config.db));
      const results = await Promise.all(dbs.map((db) => bootstrap(db, config, quiet)));
      assert.equal(results.filter((r) => r.installed).length, 1);
      assert.deepEqual(
        results.flatMap((r) => r.migrations),
        MIGRATIONS.map((m) => m.version),
      );
      const knex = queryBuilder(dbs[0]!);
      assert.deepEqual(
        (await knex('service_users').select('email')).map((u) => u.email),
        ['together@example.com'],
      );
      assert.equal((await knex('service_policies').where({ name: 'Administrator' })).length, 1);
    });
  });
}
