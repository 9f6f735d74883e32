/** The subscription hub's grouping keys: who shares one re-read per event, and who must not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Accountability } from '../../src/permissions/accountability.js';
import { PermissionSet } from '../../src/permissions/permission-store.js';
import { parseFilter } from '../../src/request/parse-filter.js';
import { parseQuery } from '../../src/request/parse-query.js';
import { canonicalJson, GroupKeys } from '../../src/realtime/hub/group-key.js';

const limits = { queryLimitMax: -1, maxRelationalDepth: 10, maxJsonQueryDepth: 10 };
const editorA: Accountability = {
  user: 'user-a',
  role: 'editors',
  roles: ['editors'],
  policies: ['p-editor', 'p-public'],
  admin: false,
  app: false,
  ip: '10.0.0.1',
};
const editorB: Accountability = { ...editorA, user: 'user-b', policies: ['p-public', 'p-editor'], ip: '10.0.0.2' };
const setOf = (permissions: Record<string, unknown> | null) =>
  new PermissionSet([
    {
      policy: 'p-editor',
      collection: 'articles',
      action: 'read',
      fields: '*',
      permissions: parseFilter(permissions),
      validation: null,
      presets: null,
    },
  ]);
const text = (query: Record<string, unknown>) => canonicalJson(parseQuery(query, limits));

describe('subscription group keys', () => {
  it('two users of one role share a group when no rule names the caller', () => {
    const keys = new GroupKeys();
    const set = setOf({ status: { _eq: 'published' } });
    const query = text({ fields: ['id', 'title'] });
    assert.equal(keys.keyOf('articles', query, editorA, set), keys.keyOf('articles', query, editorB, set));
  });

  it('they do not when a rule names $CURRENT_USER, $CURRENT_ROLE or a path of them', () => {
    const keys = new GroupKeys();
    const query = text({ fields: ['id'] });
    for (const rule of [
      { user_created: { _eq: '$CURRENT_USER' } },
      { team: { _eq: '$CURRENT_USER.team' } },
      { role: { _in: '$CURRENT_ROLES' } },
    ]) {
      const set = setOf(rule);
      assert.notEqual(
        keys.keyOf('articles', query, editorA, set),
        keys.keyOf('articles', query, editorB, set),
        JSON.stringify(rule),
      );
    }
  });

  it('nor when their query names the caller, even as admins', () => {
    const keys = new GroupKeys();
    const query = text({ filter: { owner: { _eq: '$CURRENT_USER' } } });
    const adminA = { ...editorA, admin: true };
    const adminB = { ...editorB, admin: true };
    assert.notEqual(keys.keyOf('articles', query, adminA, null), keys.keyOf('articles', query, adminB, null));
    const plain = text({ filter: { owner: { _eq: 'someone' } } });
    assert.equal(keys.keyOf('articles', plain, adminA, null), keys.keyOf('articles', plain, adminB, null));
  });

  it('other policies, the app flag, admin access, collection or query make other groups', () => {
    const keys = new GroupKeys();
    const set = setOf(null);
    const query = text({ fields: ['id'] });
    const base = keys.keyOf('articles', query, editorA, set);
    const others = [
      keys.keyOf('articles', query, { ...editorA, policies: ['p-public'] }, set),
      keys.keyOf('articles', query, { ...editorA, app: true }, set),
      keys.keyOf('articles', query, { ...editorA, admin: true }, null),
      keys.keyOf('authors', query, editorA, set),
      keys.keyOf('articles', text({ fields: ['id', 'title'] }), editorA, set),
      keys.keyOf('articles', text({ fields: ['id'], limit: 5 }), editorA, set),
    ];
    assert.equal(new Set([base, ...others]).size, others.length + 1);
  });

  it('the same query written with its keys in another order is one group', () => {
    const keys = new GroupKeys();
    const a = text({ fields: ['id'], filter: { status: { _eq: 'x' } }, sort: ['id'] });
    const b = text({ sort: ['id'], filter: { status: { _eq: 'x' } }, fields: ['id'] });
    assert.equal(keys.keyOf('articles', a, editorA, null), keys.keyOf('articles', b, editorA, null));
  });
});
