/** The schema store keeps the newest overview when loads overlap and finish out of order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Database } from '../../src/db/connection.js';
import type { SchemaSession } from '../../src/db/schema-executor.js';
import { SchemaStore } from '../../src/schema/schema-store.js';
import type { SchemaOverview } from '../../src/schema/types.js';

/** A store whose reads wait until the test lets them finish, each answering with what the database then held. */
class HeldStore extends SchemaStore {
  readonly pending: { version: number; finish: (collections: string[]) => void }[] = [];

  constructor() {
    super({} as Database);
  }

  override read(_session?: SchemaSession, version = 0): Promise<SchemaOverview> {
    return new Promise((resolve) => {
      this.pending.push({
        version,
        finish: (names) =>
          resolve({ version, collections: Object.fromEntries(names.map((n) => [n, {}])) } as unknown as SchemaOverview),
      });
    });
  }
}

describe('schema store', () => {
  it('keeps the load that started last when an earlier one finishes after it', async () => {
    const store = new HeldStore();
    const seen: number[] = [];
    store.onLoad((overview) => seen.push(overview.version));
    // A reload asked for by a notice starts before this instance's own change is committed…
    const early = store.load();
    // …and the change's own reload starts after it.
    const late = store.load();
    store.pending[1]!.finish(['articles', 'pages']);
    assert.deepEqual(Object.keys((await late).collections), ['articles', 'pages']);
    store.pending[0]!.finish(['articles']);
    // The early load answers with the newer overview and announces nothing.
    assert.equal((await early).version, 2);
    assert.deepEqual(Object.keys(store.current.collections), ['articles', 'pages']);
    assert.deepEqual(seen, [2]);
  });

  it('keeps every load that finishes in order', async () => {
    const store = new HeldStore();
    const first = store.load();
    store.pending[0]!.finish(['articles']);
    await first;
    const second = store.load();
    store.pending[1]!.finish(['articles', 'pages']);
    assert.equal((await second).version, 2);
    assert.deepEqual(Object.keys(store.current.collections), ['articles', 'pages']);
  });
});
