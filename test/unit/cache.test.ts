/**
 * The one cache type: a load that resolves after a clear (or a delete) answers its caller but stores nothing; loads
 * of one key share one promise within a generation; entries age from when their lookup started.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cache } from '../../src/cache/cache.js';
import { cacheCounts } from '../../src/cache/cache-counts.js';
import { CacheRegistry } from '../../src/cache/cache-registry.js';
import { Invalidation } from '../../src/cache/invalidation.js';

/** A loader whose answers the test gives, one call at a time. */
function held<V>() {
  const asked: ((value: V) => void)[] = [];
  const failures: ((error: Error) => void)[] = [];
  const loader = () =>
    new Promise<V>((resolve, reject) => {
      asked.push(resolve);
      failures.push(reject);
    });
  return { loader, asked, failures };
}

describe('cache', () => {
  it('stores a load and serves it synchronously', async () => {
    const cache = new Cache<string, number>('users', { max: 10 });
    const { loader, asked } = held<number>();
    const loading = cache.load('a', loader);
    asked[0]!(1);
    assert.equal(await loading, 1);
    assert.equal(cache.get('a'), 1);
    assert.equal(await cache.load('a', loader), 1);
    assert.equal(asked.length, 1);
  });

  it('does not store a load that resolves after a clear', async () => {
    const cache = new Cache<string, string>('users', { max: 10 });
    const { loader, asked } = held<string>();
    const before = cache.load('a', loader);
    cache.clear();
    asked[0]!('stale');
    assert.equal(await before, 'stale', 'the load answers its own caller');
    assert.equal(cache.get('a'), undefined, 'but is not kept');
    const after = cache.load('a', loader);
    assert.equal(asked.length, 2, 'the next caller looks up again');
    asked[1]!('fresh');
    assert.equal(await after, 'fresh');
    assert.equal(cache.get('a'), 'fresh');
  });

  it('does not store a load that resolves after a delete', async () => {
    const cache = new Cache<string, string>('live-logins', { max: 10 });
    const { loader, asked } = held<string>();
    const before = cache.load('a', loader);
    cache.delete('a');
    asked[0]!('stale');
    await before;
    assert.equal(cache.get('a'), undefined);
  });

  it('shares one load per key within a generation, and starts another after a clear', async () => {
    const cache = new Cache<string, number>('users', { max: 10 });
    const { loader, asked } = held<number>();
    const first = cache.load('a', loader);
    const second = cache.load('a', loader);
    assert.equal(asked.length, 1);
    cache.clear();
    const third = cache.load('a', loader);
    assert.equal(asked.length, 2, 'a load from before the clear is not shared after it');
    asked[0]!(1);
    asked[1]!(2);
    assert.deepEqual(await Promise.all([first, second, third]), [1, 1, 2]);
    assert.equal(cache.get('a'), 2);
  });

  it('stores nothing for a failed load, and loads again', async () => {
    const cache = new Cache<string, number>('users', { max: 10 });
    const { loader, asked, failures } = held<number>();
    const failing = cache.load('a', loader);
    failures[0]!(new Error('gone'));
    await assert.rejects(failing, /gone/);
    assert.equal(cache.get('a'), undefined);
    const next = cache.load('a', loader);
    asked[1]!(3);
    assert.equal(await next, 3);
  });

  it('keeps null answers and ages entries from when their lookup started', async () => {
    let now = 1_000;
    const cache = new Cache<string, string | null>('users', { max: 10, ttlMs: 100, now: () => now });
    const { loader, asked } = held<string | null>();
    const loading = cache.load('a', loader);
    now += 60;
    asked[0]!(null);
    assert.equal(await loading, null);
    assert.equal(cache.get('a'), null);
    now += 40;
    assert.equal(cache.get('a'), undefined, '100 ms after the lookup started');
  });

  it('bounds entries by size; an entry larger than the whole is not kept', () => {
    const cache = new Cache<string, string>('openapi-documents', { maxSize: 10, sizeOf: (text) => text.length });
    cache.set('a', '123456');
    cache.set('b', '1234');
    assert.equal(cache.size, 2);
    cache.set('c', '12');
    assert.equal(cache.get('a'), undefined, 'least recently used out first');
    cache.set('d', '12345678901');
    assert.equal(cache.get('d'), undefined);
  });

  it('computes synchronously once per key', () => {
    const cache = new Cache<string, object>('query-strings', { max: 10 });
    let made = 0;
    const first = cache.compute('a', () => ({ made: ++made }));
    assert.equal(
      cache.compute('a', () => ({ made: ++made })),
      first,
    );
    assert.equal(made, 1);
  });
});

describe('invalidation', () => {
  it('clears what a change names here at once, runs reactions after, and a named login only', async () => {
    const caches = new CacheRegistry();
    const users = caches.create<string, number>('users', { max: 10 });
    const logins = caches.create<string, boolean>('live-logins', { max: 10 });
    const settings = caches.create<string, number>('settings', { max: 10 });
    const invalidation = new Invalidation(caches);
    users.set('u', 1);
    settings.set('s', 1);
    logins.set('a', true);
    logins.set('b', true);
    const seen: (number | undefined)[] = [];
    invalidation.after('permissions', () => seen.push(users.get('u')));
    const told = invalidation.changed('permissions');
    assert.equal(users.get('u'), undefined, 'cleared before changed() returns');
    assert.deepEqual(seen, [undefined], 'the reaction ran after the clear');
    assert.equal(settings.get('s'), 1, 'untouched by a permissions change');
    await told;
    await invalidation.changed('logins', { family: 'a' });
    assert.equal(logins.get('a'), undefined);
    assert.equal(logins.get('b'), true);
    await invalidation.changed('logins', {});
    assert.equal(logins.get('b'), undefined, 'a notice that names no login clears them all');
  });

  it('does not let a lookup on its way put back what a change cleared', async () => {
    const caches = new CacheRegistry();
    const users = caches.create<string, string>('users', { max: 10 });
    const invalidation = new Invalidation(caches);
    const { loader, asked } = held<string>();
    const lookup = users.load('u', loader);
    await invalidation.changed('permissions');
    asked[0]!('before the change');
    await lookup;
    assert.equal(users.get('u'), undefined);
  });
});

describe('cache counts (for /metrics)', () => {
  const counts = () => cacheCounts().find((c) => c.name === 'graphql-selections')!;

  it('counts a hit per lookup answered and a miss per entry made, once for a get followed by a load', async () => {
    const cache = new Cache<string, number>('graphql-selections', { max: 10 });
    const start = counts();
    assert.equal(cache.get('a'), undefined);
    assert.equal(await cache.load('a', async () => 1), 1);
    assert.equal(cache.get('a'), 1);
    assert.equal(await cache.load('a', async () => 2), 1);
    assert.equal(
      cache.compute('b', () => 3),
      3,
    );
    assert.equal(
      cache.compute('b', () => 4),
      3,
    );
    const end = counts();
    assert.deepEqual([end.hits - start.hits, end.misses - start.misses], [3, 2]);
  });
});
