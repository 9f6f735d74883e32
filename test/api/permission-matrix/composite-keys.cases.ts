/**
 * Composite-key writes under permissions: the admin creates `ratings` (key `article_id, tag`) through /collections
 * and fills it; `own` gets read, update and delete rules on the rows of tag `a` only. Every write must touch exactly
 * the row its full key (or its query) names, and a row outside the rules answers like a missing one.
 *
 * Typed by the runner (case-format.ts); kept free of imports so that it stands on its own.
 */

const FORBIDDEN = { status: 403, error: 'FORBIDDEN' } as const;
const TAG_A = { tag: { _eq: 'a' } };
const read = (url: string, data: unknown) => ({ request: { url }, expect: { status: 200, data } });
const all = read('/items/ratings?fields=article_id,tag,score', [
  { article_id: 1, tag: 'a', score: 10 },
  { article_id: 1, tag: 'b', score: 2 },
  { article_id: 2, tag: 'a', score: 3 },
]);

export const cases = [
  {
    name: 'creates a collection with a composite key',
    role: 'admin',
    request: {
      method: 'POST',
      url: '/collections',
      body: {
        collection: 'ratings',
        fields: [
          { field: 'article_id', type: 'integer', schema: { is_primary_key: true } },
          { field: 'tag', type: 'string', schema: { is_primary_key: true, max_length: 10 } },
          { field: 'score', type: 'integer' },
        ],
      },
    },
    expect: { status: 200 },
  },
  {
    name: 'fills it',
    role: 'admin',
    request: {
      method: 'POST',
      url: '/items/ratings',
      body: [
        { article_id: 1, tag: 'a', score: 1 },
        { article_id: 1, tag: 'b', score: 2 },
        { article_id: 2, tag: 'a', score: 3 },
      ],
    },
    expect: {
      status: 200,
      data: [
        { article_id: 1, tag: 'a', score: 1 },
        { article_id: 1, tag: 'b', score: 2 },
        { article_id: 2, tag: 'a', score: 3 },
      ],
    },
  },
  {
    name: 'grants own rules on the rows of tag a',
    role: 'admin',
    request: {
      method: 'POST',
      url: '/access',
      body: {
        user: '$USER_ID(own)',
        policy: {
          name: 'matrix own ratings',
          permissions: [
            { collection: 'ratings', action: 'read', fields: '*', permissions: TAG_A },
            { collection: 'ratings', action: 'update', fields: 'score', permissions: TAG_A },
            { collection: 'ratings', action: 'delete', permissions: TAG_A },
          ],
        },
      },
    },
    expect: { status: 200 },
  },
  {
    name: 'updates by full key only that row',
    role: 'own',
    request: { method: 'PATCH', url: '/items/ratings/1,a', body: { score: 10 } },
    expect: { status: 200, data: { article_id: 1, tag: 'a', score: 10 } },
    then: all,
  },
  {
    name: 'a row outside the rules answers like a missing one',
    role: 'own',
    request: { method: 'PATCH', url: '/items/ratings/1,b', body: { score: 0 } },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'PATCH', url: '/items/ratings/9,z', body: { score: 0 } } },
    then: all,
  },
  {
    name: 'part of a key names no row',
    role: 'own',
    request: { method: 'PATCH', url: '/items/ratings/1', body: { score: 0 } },
    expect: FORBIDDEN,
    then: all,
  },
  {
    name: 'updates by query only the rows the query and the rules select',
    role: 'own',
    request: {
      method: 'PATCH',
      url: '/items/ratings',
      query: { fields: 'article_id,tag,score' },
      body: { query: { filter: { article_id: { _eq: 1 } } }, data: { score: 10 } },
    },
    expect: { status: 200, data: [{ article_id: 1, tag: 'a', score: 10 }] },
    then: all,
  },
  {
    name: 'a key column can not be changed',
    role: 'own',
    request: { method: 'PATCH', url: '/items/ratings/2,a', body: { tag: 'b' } },
    expect: { status: 400, error: 'INVALID_PAYLOAD' },
    then: all,
  },
  {
    name: 'a batch with a row outside the rules is refused whole',
    role: 'own',
    request: {
      method: 'PATCH',
      url: '/items/ratings',
      body: [
        { article_id: 2, tag: 'a', score: 0 },
        { article_id: 1, tag: 'b', score: 0 },
      ],
    },
    expect: FORBIDDEN,
    then: all,
  },
  {
    name: 'deleting a row outside the rules deletes nothing',
    role: 'own',
    request: { method: 'DELETE', url: '/items/ratings', body: { keys: ['2,a', { article_id: 1, tag: 'b' }] } },
    expect: FORBIDDEN,
    then: all,
  },
  {
    name: 'deletes by key object only that row',
    role: 'own',
    request: { method: 'DELETE', url: '/items/ratings', body: { keys: [{ article_id: 2, tag: 'a' }] } },
    expect: { status: 204 },
    then: read('/items/ratings?fields=article_id,tag', [
      { article_id: 1, tag: 'a' },
      { article_id: 1, tag: 'b' },
    ]),
  },
  { name: 'public reads nothing of it', role: 'public', request: { url: '/items/ratings' }, expect: FORBIDDEN },
];
