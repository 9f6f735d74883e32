/** The statement cache's keys: what makes two reads the same shape, and which reads are never cached. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Accountability } from '../../src/permissions/accountability.js';
import { PermissionSet } from '../../src/permissions/permission-store.js';
import type { Query } from '../../src/request/query.js';
import { StatementCache, type CachedRead } from '../../src/engine/read/statement-cache.js';

const admin: Accountability = {
  user: 'u1',
  role: 'r1',
  roles: ['r1'],
  policies: ['p'],
  admin: true,
  app: true,
  ip: null,
};
const editor: Accountability = { ...admin, admin: false };
const other: Accountability = { ...editor, user: 'u2' };
const rules = (permissions: unknown) =>
  new PermissionSet([
    { collection: 'articles', action: 'read', permissions, validation: null, presets: null, fields: ['*'] } as never,
  ]);

describe('statement cache keys', () => {
  const cache = new StatementCache(10);
  const query: Query = { fields: ['id'], filter: { status: { _eq: 'published' } } } as unknown as Query;

  it('gives the same key to the same read, another to another collection, schema version, query or options', () => {
    const key = cache.key(1, 'articles', query, admin, null, 'rest');
    assert.ok(key);
    assert.equal(cache.key(1, 'articles', { ...query }, admin, null, 'rest'), key);
    assert.notEqual(cache.key(2, 'articles', query, admin, null, 'rest'), key);
    assert.notEqual(cache.key(1, 'authors', query, admin, null, 'rest'), key);
    assert.notEqual(cache.key(1, 'articles', { ...query, limit: 5 } as Query, admin, null, 'rest'), key);
    assert.notEqual(cache.key(1, 'articles', query, admin, null, 'graphql'), key);
  });

  it('keys non-admin reads by permission set and caller', () => {
    const set = rules({ author: { _eq: '$CURRENT_USER' } });
    const key = cache.key(1, 'articles', query, editor, set, 'rest');
    assert.ok(key);
    assert.equal(cache.key(1, 'articles', query, editor, set, 'rest'), key);
    assert.notEqual(cache.key(1, 'articles', query, other, set, 'rest'), key);
    assert.notEqual(cache.key(1, 'articles', query, editor, rules({ author: { _eq: '$CURRENT_USER' } }), 'rest'), key);
  });

  it('never caches reads whose query or rules move: $NOW, $CURRENT_USER.<field>', () => {
    assert.equal(
      cache.key(1, 'articles', { filter: { published_at: { _lt: '$NOW' } } } as unknown as Query, admin, null, 'rest'),
      null,
    );
    assert.equal(
      cache.key(
        1,
        'articles',
        { filter: { author: { _eq: '$CURRENT_USER.id' } } } as unknown as Query,
        admin,
        null,
        'rest',
      ),
      null,
    );
    assert.equal(
      cache.key(1, 'articles', query, editor, rules({ published_at: { _lt: '$NOW(-1 day)' } }), 'rest'),
      null,
    );
    assert.equal(
      cache.key(1, 'articles', query, editor, rules({ author: { email: { _eq: '$CURRENT_USER.email' } } }), 'rest'),
      null,
    );
  });

  it('keeps an admin read that names the caller apart per caller', () => {
    const named = { filter: { author: { _eq: '$CURRENT_USER' } } } as unknown as Query;
    assert.notEqual(
      cache.key(1, 'articles', named, admin, null, 'rest'),
      cache.key(1, 'articles', named, { ...admin, user: 'u9' }, null, 'rest'),
    );
  });
});

describe('statement cache shapes', () => {
  const byStatus = (q: Query) =>
    ({ filter: { type: 'condition', field: 'status', operator: '_eq', value: q } as never, limit: 10 }) as Query;
  /** A compile as the planner does it for `status = ? limit ?`, counting its calls. */
  function compiler(sql: (q: Query) => string = () => 'select ... where status = ? limit ?') {
    let calls = 0;
    const compile = (q: Query): CachedRead => {
      calls++;
      const condition = q.filter as unknown as { value: unknown };
      return {
        sql: sql(q),
        params: [String(condition.value).toLowerCase(), q.limit],
        primary: 'id',
        totalCount: false,
        filterCount: false,
        reach: [],
      };
    };
    return { compile, calls: () => calls };
  }

  it('shares a statement between values of the same classes, their values as parameters', () => {
    const cache = new StatementCache(10);
    const { compile, calls } = compiler();
    const first = cache.find(1, 'articles', byStatus('Published' as never), admin, null, 'rest');
    assert.equal(first.read, undefined);
    cache.remember(first, compile(byStatus('Published' as never)), compile);
    assert.equal(calls(), 2, 'a second compile with other values checks the shape');
    const hit = cache.find(1, 'articles', { ...byStatus('Draft' as never), limit: 3 }, admin, null, 'rest');
    assert.deepEqual(hit.read?.params, ['draft', 3]);
    assert.equal(hit.read?.sql, 'select ... where status = ? limit ?');
    assert.equal(calls(), 2);
  });

  it('keeps reads apart whose SQL text follows the value, and values outside the classes', () => {
    const cache = new StatementCache(10);
    const { compile } = compiler(
      (q) =>
        `select ... where status = ? limit ? -- ${String((q.filter as unknown as { value: string }).value).length}`,
    );
    const first = cache.find(1, 'articles', byStatus('published' as never), admin, null, 'rest');
    cache.remember(first, compile(byStatus('published' as never)), compile);
    assert.equal(cache.find(1, 'articles', byStatus('archived' as never), admin, null, 'rest').read, undefined);
    assert.ok(
      cache.find(1, 'articles', byStatus('published' as never), admin, null, 'rest').read,
      'the exact read is kept',
    );
    const { compile: plain } = compiler();
    const dated = cache.find(1, 'articles', byStatus('2024-01-01' as never), admin, null, 'rest');
    cache.remember(dated, plain(byStatus('2024-01-01' as never)), plain);
    assert.equal(
      cache.find(1, 'articles', byStatus('2024-01-02' as never), admin, null, 'rest').read,
      undefined,
      'a date is part of the key',
    );
    assert.deepEqual(
      cache.find(1, 'articles', { ...byStatus('2024-01-01' as never), limit: 7 }, admin, null, 'rest').read?.params,
      ['2024-01-01', 7],
    );
  });

  it('keeps limits in the shape where the database writes them into the SQL, still sharing other values', () => {
    const cache = new StatementCache(10, true);
    let calls = 0;
    // As SQLite's compile: the limit in the text, the filter value bound.
    const compile = (q: Query): CachedRead => {
      calls++;
      return {
        sql: `select ... where status = ? limit ${q.limit}`,
        params: [String((q.filter as unknown as { value: unknown }).value).toLowerCase()],
        primary: 'id',
        totalCount: false,
        filterCount: false,
        reach: [],
      };
    };
    const first = cache.find(1, 'articles', byStatus('Published' as never), admin, null, 'rest');
    cache.remember(first, compile(byStatus('Published' as never)), compile);
    assert.equal(calls, 2);
    const hit = cache.find(1, 'articles', byStatus('Draft' as never), admin, null, 'rest');
    assert.equal(hit.read?.sql, 'select ... where status = ? limit 10', 'another filter value shares the statement');
    assert.deepEqual(hit.read?.params, ['draft']);
    const limited = cache.find(1, 'articles', { ...byStatus('Draft' as never), limit: 3 }, admin, null, 'rest');
    assert.equal(limited.read, undefined, 'another limit is another shape');
    cache.remember(limited, compile({ ...byStatus('Draft' as never), limit: 3 }), compile);
    assert.equal(
      cache.find(1, 'articles', { ...byStatus('Archived' as never), limit: 3 }, admin, null, 'rest').read?.sql,
      'select ... where status = ? limit 3',
    );
  });

  it('gives a read a stable statement name per SQL text', () => {
    const cache = new StatementCache(10);
    const { compile } = compiler();
    const first = cache.find(1, 'articles', byStatus('published' as never), admin, null, 'rest');
    const read = compile(byStatus('published' as never));
    cache.remember(first, read, compile);
    assert.match(read.name ?? '', /^strata_[0-9a-f]{24}$/);
    assert.equal(cache.find(1, 'articles', byStatus('draft' as never), admin, null, 'rest').read?.name, read.name);
  });
});

describe('statement cache shapes of long lists', () => {
  it('keeps a read with more values than a shape takes by its exact key only', () => {
    const cache = new StatementCache(10);
    const many = {
      filter: { type: 'condition', field: 'id', operator: '_in', value: Array.from({ length: 5000 }, (_, i) => i + 1) },
    } as unknown as Query;
    const lookup = cache.find(1, 'articles', many, admin, null, 'rest');
    assert.equal(lookup.shape, null);
    assert.ok(lookup.exact);
  });
});
