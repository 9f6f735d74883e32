/**
 * argon2 runs before a write's transaction opens, never while the transaction holds a pooled connection: payload
 * values, and presets a non-admin's nested upsert may store whichever way its lookup (inside the transaction) goes.
 * Observed by counting the transactions open whenever the writer hashes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { hashPassword, verifyPassword } from '../../src/auth/passwords.js';
import { queryBuilder, type Executor } from '../../src/db/connection.js';
import { ItemsWriter } from '../../src/engine/write/items-writer.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`argon2 outside write transactions (${clientLabel(client)})`, () => {
    let t: TestApp;
    let writer: ItemsWriter;
    let token: string;
    let open = 0;
    /** Transactions open at each hash. */
    const hashedDuring: number[] = [];
    const SYSTEM = { system: true };
    const admin = () => t.context.accountability.resolve(null, null).then((a) => ({ ...a, admin: true }));

    before(async () => {
      t = await startTestApp(client, { fixture: false });
      const { db } = t.context;
      const transaction = db.transaction.bind(db);
      db.transaction = <T>(work: (tx: Executor) => Promise<T>) =>
        transaction(async (tx) => {
          open += 1;
          try {
            return await work(tx);
          } finally {
            open -= 1;
          }
        });
      writer = new ItemsWriter({
        db,
        schema: () => t.context.schema.current,
        items: t.context.items,
        access: t.context.access,
        maxBatchMutation: Infinity,
        hash: (plain) => {
          hashedDuring.push(open);
          return hashPassword(plain, t.context.config.hash);
        },
      });
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
          {
            collection: 'service_users',
            action: 'update',
            fields: 'email,role',
            presets: { password: 'update-Passw0rd' },
          },
        ],
      });
      ({ token } = await createUserWithPolicies(t, [policy]));
    });
    after(async () => {
      await t?.close();
    });

    it('hashes payload values before the transaction: create, nested upsert, update', async () => {
      hashedDuring.length = 0;
      const accountability = await admin();
      const user = randomUUID();
      await writer.create(
        await writer.open('service_users', 'create', accountability, SYSTEM),
        [{ id: user, email: 'hash-1@example.com', password: 'first-Passw0rd' }],
        false,
        { fields: ['id'] },
      );
      await writer.create(
        await writer.open('service_roles', 'create', accountability, SYSTEM),
        [{ name: 'hashing', users: [{ id: user, password: 'second-Passw0rd' }] }],
        false,
        { fields: ['id'] },
      );
      await writer.updateOne(
        await writer.open('service_users', 'update', accountability, SYSTEM),
        user,
        { password: 'third-Passw0rd' },
        { fields: ['id'] },
      );
      assert.deepEqual(hashedDuring, [0, 0, 0]);
      const stored = await queryBuilder(t.context.db)('service_users').where({ id: user }).first();
      assert.equal(await verifyPassword(String(stored.password), 'third-Passw0rd'), true);
    });

    it("hashes the presets of both rules a non-admin's nested upsert may take before the transaction, and stores the one that applies", async () => {
      hashedDuring.length = 0;
      const accountability = await t.context.accountability.resolve(token, null);
      const user = randomUUID();
      await writer.create(
        await writer.open('service_roles', 'create', accountability, SYSTEM),
        [{ name: 'nested', users: [{ id: user, email: 'hash-2@example.com' }] }],
        false,
        { fields: ['id'] },
      );
      // One hash per preset (create and update rules), both made with no transaction open.
      assert.deepEqual(hashedDuring, [0, 0]);
      const stored = await queryBuilder(t.context.db)('service_users').where({ id: user }).first();
      assert.equal(await verifyPassword(String(stored.password), 'preset-Passw0rd'), true);
    });
  });
}
