/**
 * A preset on a hash field is hashed whenever it applies, also when a nested object that names a key turns out,
 * inside the transaction, to be a create (its rules are known only then). Here: a role created with a nested user
 * whose create rule presets the password.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/auth/passwords.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

for (const client of testClients()) {
  describe(`presets on hash fields (${clientLabel(client)})`, () => {
    let t: TestApp;
    let token: string;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'service_roles', action: 'create', fields: 'id,name,users' },
          { collection: 'service_roles', action: 'read', fields: 'id,name' },
          {
            collection: 'service_users',
            action: 'create',
            fields: 'id,email,role',
            presets: { password: 'preset-Passw0rd', status: 'active' },
          },
        ],
      });
      ({ token } = await createUserWithPolicies(t, [policy]));
    });
    after(async () => {
      await t?.close();
    });

    it('hashes the preset of a nested user created under a key it names', async () => {
      const user = randomUUID();
      const response = await t.request({
        method: 'POST',
        url: '/roles',
        token,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'nested', users: [{ id: user, email: 'nested-preset@example.com' }] }),
      });
      assert.equal(response.statusCode, 200, response.body);
      const stored = await queryBuilder(t.context.db)('service_users').where({ id: user }).first();
      assert.ok(stored, 'the nested user was created');
      assert.match(String(stored.password), /^\$argon2id\$/);
      assert.equal(await verifyPassword(String(stored.password), 'preset-Passw0rd'), true);
    });
  });
}
