/**
 * Writes by callers holding no write permission at all (the `none` role and the public, even on collections the
 * public may read): refused with 403, the same body for an existing and a missing key, and nothing changed in the
 * database (the admin read after each). Write permissions themselves are exercised by task W's cases.
 */
import type { MatrixCase } from './case-format.js';

const FORBIDDEN = { status: 403, error: 'FORBIDDEN' } as const;
const tagsUnchanged = {
  request: { url: '/items/tags', query: { fields: 'id,name', sort: 'id' } },
  expect: {
    status: 200,
    data: [
      { id: 1, name: 'science' },
      { id: 2, name: 'history' },
      { id: 3, name: 'computing' },
      { id: 4, name: 'unused' },
    ],
  },
};
const articleCount = (count: number) => ({
  request: { url: '/items/articles', query: { aggregate: { count: '*' } } },
  expect: { status: 200, data: [{ count }] },
});
const authorCount = (count: number) => ({
  request: { url: '/items/authors', query: { aggregate: { count: '*' } } },
  expect: { status: 200, data: [{ count }] },
});

export const cases: MatrixCase[] = [
  {
    name: 'create',
    role: 'none',
    request: { method: 'POST', url: '/items/tags', body: { name: 'new' } },
    expect: FORBIDDEN,
    then: tagsUnchanged,
  },
  {
    name: 'create many',
    role: 'none',
    request: { method: 'POST', url: '/items/tags', body: [{ name: 'a' }, { name: 'b' }] },
    expect: FORBIDDEN,
    then: tagsUnchanged,
  },
  {
    name: 'nested create',
    role: 'none',
    request: { method: 'POST', url: '/items/articles', body: { title: 'Nested', author: { name: 'New author' } } },
    expect: FORBIDDEN,
    then: authorCount(3),
  },
  {
    name: 'update answers like a missing item',
    role: 'none',
    request: { method: 'PATCH', url: '/items/tags/1', body: { name: 'changed' } },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'PATCH', url: '/items/tags/99', body: { name: 'changed' } } },
    then: tagsUnchanged,
  },
  {
    name: 'batch update by keys',
    role: 'none',
    request: { method: 'PATCH', url: '/items/tags', body: { keys: [1, 2], data: { name: 'x' } } },
    expect: FORBIDDEN,
    then: tagsUnchanged,
  },
  {
    name: 'delete answers like a missing item',
    role: 'none',
    request: { method: 'DELETE', url: '/items/articles/1' },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'DELETE', url: '/items/articles/999' } },
    then: articleCount(6),
  },
  {
    name: 'delete by keys',
    role: 'none',
    request: { method: 'DELETE', url: '/items/articles', body: [1, 2] },
    expect: FORBIDDEN,
    then: articleCount(6),
  },
  // The public may read tags, not write them.
  {
    name: 'create a readable collection',
    role: 'public',
    request: { method: 'POST', url: '/items/tags', body: { name: 'new' } },
    expect: FORBIDDEN,
    then: tagsUnchanged,
  },
  {
    name: 'update a readable item answers like a missing one',
    role: 'public',
    request: { method: 'PATCH', url: '/items/tags/2', body: { name: 'changed' } },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'PATCH', url: '/items/tags/99', body: { name: 'changed' } } },
    then: tagsUnchanged,
  },
  {
    name: 'delete a readable item',
    role: 'public',
    request: { method: 'DELETE', url: '/items/tags/4' },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'DELETE', url: '/items/tags/99' } },
    then: tagsUnchanged,
  },
  {
    name: 'nested update through a readable item',
    role: 'public',
    request: { method: 'PATCH', url: '/items/pages/1', body: { sections: [] } },
    expect: FORBIDDEN,
    then: {
      request: { url: '/items/pages/1', query: { fields: 'sections' } },
      expect: { status: 200, data: { sections: [1, 2] } },
    },
  },
  // The follow-up read proves writes do land when allowed.
  {
    name: 'an admin create lands',
    role: 'admin',
    request: { method: 'POST', url: '/items/tags', body: { name: 'admin-made' } },
    expect: { status: 200, data: { id: 5, name: 'admin-made', articles: [] } },
    then: {
      request: { url: '/items/tags/5', query: { fields: 'name' } },
      expect: { status: 200, data: { name: 'admin-made' } },
    },
  },
];
