/** The statement cache's keys: what makes two reads the same shape, and which reads are never cached. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Accountability } from '../../src/permissions/accountability.js';
import { PermissionSet } from '../../src/permissions/permission-store.js';
import type { Query } from '../../src/request/query.js';
import { StatementCache } from '../../src/services/statement-cache.js';

const admin: Accountability = { user: 'u1', role: 'r1', roles: ['r1'], policies: ['p'], admin: true, app: true, ip: null };
const editor: Accountability = { ...admin, admin: false };
const other: Accountability = { ...editor, user: 'u2' };
const rules = (permissions: unknown) => new PermissionSet([{ collection: 'articles', action: 'read', permissions, validation: null, presets: null, fields: ['*'] } as never]);

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
    assert.equal(cache.key(1, 'articles', { filter: { published_at: { _lt: '$NOW' } } } as unknown as Query, admin, null, 'rest'), null);
    assert.equal(cache.key(1, 'articles', { filter: { author: { _eq: '$CURRENT_USER.id' } } } as unknown as Query, admin, null, 'rest'), null);
    assert.equal(cache.key(1, 'articles', query, editor, rules({ published_at: { _lt: '$NOW(-1 day)' } }), 'rest'), null);
    assert.equal(cache.key(1, 'articles', query, editor, rules({ author: { email: { _eq: '$CURRENT_USER.email' } } }), 'rest'), null);
  });

  it('keeps an admin read that names the caller apart per caller', () => {
    const named = { filter: { author: { _eq: '$CURRENT_USER' } } } as unknown as Query;
    assert.notEqual(cache.key(1, 'articles', named, admin, null, 'rest'), cache.key(1, 'articles', named, { ...admin, user: 'u9' }, null, 'rest'));
  });
});
