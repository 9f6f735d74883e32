/**
 * Closing the database (the service shutting down, or a test's `context.close()`) leaves nothing waiting: a
 * statement that asks the pool for a connection while it is being destroyed, or after, fails at once with 503
 * SERVICE_UNAVAILABLE instead of holding the process open until its acquire timeout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Database } from '../../src/db/connection.js';
import { ServiceUnavailableError } from '../../src/errors/catalogue.js';
import { clientLabel, createTestDatabase, testClients } from '../helpers/test-db.js';

/** A statement's outcome, watched from the start: whether it has settled yet, and its error (null when it succeeded). */
function watch(promise: Promise<unknown>) {
  let settled = false;
  const error = promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  void error.then(() => (settled = true));
  return { settled: () => settled, error };
}

/** After every job queued so far and one turn of the loop: what a timer-free rejection needs to have happened. */
const oneTurn = () => new Promise((resolve) => setImmediate(resolve));

for (const client of testClients()) {
  describe(`closing the database (${clientLabel(client)})`, () => {
    it('rejects statements that ask for a connection while the pool is destroyed, and after', async () => {
      const testDb = await createTestDatabase(client);
      const db = new Database(testDb.config);
      try {
        assert.deepEqual(await db.query('select 1 as one'), [{ one: 1 }]);
        const closing = db.close();
        const during = [
          watch(db.query('select 2 as two')),
          watch(db.transaction((tx) => tx.query('select 3 as three'))),
        ];
        await closing;
        await oneTurn();
        for (const statement of during) {
          assert.equal(statement.settled(), true, 'a statement begun during close still waits for the pool');
          const error = await statement.error;
          assert.ok(error instanceof ServiceUnavailableError, String(error));
        }
        const after = watch(db.query('select 4 as four'));
        await oneTurn();
        assert.equal(after.settled(), true);
        assert.ok((await after.error) instanceof ServiceUnavailableError);
        // Closing twice is closing once.
        await db.close();
      } finally {
        await db.close();
        await testDb.drop();
      }
    });
  });
}
