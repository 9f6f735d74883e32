/**
 * A read never sees another request's uncommitted rows. On SQLite a read runs on the idle pooled connection without
 * acquiring it (Database.query): this checks that a connection held by a transaction is never taken that way, so
 * the read waits for the transaction there, and on the servers it runs on another connection and sees the last
 * committed state.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { Database } from '../../src/db/connection.js';
import { clientLabel, createTestDatabase, testClients } from '../helpers/test-db.js';

async function count(db: Database): Promise<number> {
  const [row] = await db.query<{ n: unknown }>('select count(*) as n from isolation_probe');
  return Number(row!.n);
}

for (const client of testClients()) {
  describe(`read isolation (${clientLabel(client)})`, () => {
    it('a read during a transaction never answers its uncommitted rows, and sees them once committed', async () => {
      const testDb = await createTestDatabase(client);
      const db = new Database(testDb.config);
      try {
        console.error('A');
        await db.query('create table isolation_probe (id integer primary key, name varchar(20))');
        await db.query("insert into isolation_probe (id, name) values (1, 'a')");
        for (const outcome of ['rollback', 'commit'] as const) {
          let release!: () => void;
          const gate = new Promise<void>((resolve) => (release = resolve));
          let inserted!: () => void;
          const insertedOnce = new Promise<void>((resolve) => (inserted = resolve));
          const transaction = db.transaction(async (tx) => {
            await tx.query("insert into isolation_probe (id, name) values (2, 'b')");
            inserted();
            await gate;
            if (outcome === 'rollback') throw new Error('roll back');
          });
          await insertedOnce;
          let during: number | null = null;
          const reading = count(db).then((n) => (during = n));
          try {
            if (client === 'sqlite3') {
              // One connection, held by the transaction: the read waits for it.
              for (let i = 0; i < 20; i++) await turn();
              assert.equal(during, null);
            } else {
              // Another connection: the last committed state, at once.
              assert.equal(await reading, 1);
            }
          } finally {
            release();
            await transaction.catch(() => {});
          }
          await reading;
          if (client === 'sqlite3') assert.equal(during, outcome === 'commit' ? 2 : 1);
          assert.equal(await count(db), outcome === 'commit' ? 2 : 1);
        }
      } finally {
        await db.close();
        await testDb.drop();
      }
    });
  });
}
