/**
 * Generators of hostile input for the fuzz suite: query strings, SEARCH bodies, item payloads and GraphQL documents
 * built from the fixture's names and operators, mixed with values chosen to break things (huge and odd numbers, NUL
 * and other control characters, quotes, backslashes, SQL fragments, deep nesting, long lists, unicode).
 */
import fc from 'fast-check';

export const COLLECTIONS = [
  'articles',
  'authors',
  'tags',
  'articles_tags',
  'pages',
  'headings',
  'nope',
  'service_users',
  'service_sessions',
];
const FIELDS = [
  'id',
  'title',
  'slug',
  'body',
  'status',
  'rating',
  'views',
  'price',
  'score',
  'published',
  'publish_date',
  'published_at',
  'updated_at',
  'read_time',
  'uid',
  'metadata',
  'title_length',
  'author',
  'tags',
  'name',
  'email',
  'bio',
  'active',
  'joined',
  'articles',
  'sections',
  'articles_id',
  'tags_id',
  'item',
  'collection',
  '*',
  'nope',
  '',
  '$',
  '__proto__',
  'constructor',
  'prototype',
];
const PATHS = [
  'author.name',
  'author.*',
  'tags.tags_id.name',
  'articles.title',
  'articles.author.articles.id',
  '*.*',
  'sections.item:headings.text',
  'year(publish_date)',
  'count(tags)',
  'json(metadata, lang)',
  'json(metadata, tags[0])',
  'month(nope)',
  'count(',
  '((',
  'a.b.c.d.e.f.g.h.i.j.k.l',
];
const OPERATORS = [
  '_eq',
  '_neq',
  '_ieq',
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_in',
  '_nin',
  '_null',
  '_nnull',
  '_contains',
  '_icontains',
  '_ncontains',
  '_starts_with',
  '_ends_with',
  '_between',
  '_nbetween',
  '_empty',
  '_nempty',
  '_some',
  '_none',
  '_regex',
  '_json',
  '_intersects',
  '_bogus',
];

/** The names that reach a prototype when used as a key or walked as a path. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const prototypeKey = fc.constantFrom(...PROTOTYPE_KEYS);

export const nastyString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    "'",
    '"',
    '\\',
    '\\\\',
    '%',
    '_',
    '\u0000',
    'a\u0000b',
    '\u0001',
    '\u001f',
    '\uffff',
    '\ud800',
    '😀',
    '日本語',
    "'; drop table articles; --",
    "' or '1'='1",
    '1e23',
    '-1',
    '-0',
    '0x10',
    'NaN',
    'Infinity',
    '1e400',
    '99999999999999999999999',
    '9223372036854775808',
    '-9223372036854775809',
    '2147483648',
    '2024-13-45',
    '9999-12-31T23:59:59Z',
    '00:00:99',
    'null',
    'NULL',
    'true',
    'false',
    '$NOW',
    '$NOW(-1 year)',
    '$NOW(+99999999999 years)',
    '$CURRENT_USER',
    '$CURRENT_USER.role.name',
    '$CURRENT_ROLE.x.y',
    '$CURRENT_ROLES',
    '$CURRENT_POLICIES',
    '$FOO',
    '{}',
    '[]',
    '[1,2',
    '{"a":',
    'a,b,c',
    '*',
    '-',
    '--',
    '..',
    'a.b',
    '\\u0000',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer({ min: 1, max: 3 }).map((n) => 'x'.repeat(n * 4_000)),
);

const nastyNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(
    0,
    -1,
    1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53,
    -(2 ** 53),
    Number.MAX_SAFE_INTEGER + 2,
    1e23,
    1e308,
    -1e308,
    0.5,
    -0.0,
    5e-324,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Values a field of the fixture could hold: most fuzzed requests should get past parsing and reach the database. */
const plausibleValue = fc.oneof(
  fc.integer({ min: -5, max: 10 }),
  fc.constantFrom(
    'published',
    'draft',
    'Hello World',
    'Ada Lovelace',
    '2024-01-15',
    '2024-01-15T10:30:00',
    '2024-01-15T10:30:00.123Z',
    '01:30:00',
    '12.50',
    '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a',
    'science',
    '%',
    'a_b',
  ),
  fc.boolean(),
  fc.constant(null),
);

export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: plausibleValue },
  nastyString,
  nastyNumber,
  fc.boolean(),
  fc.constant(null),
);

const fieldName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FIELDS.slice(0, 30)) },
  { weight: 2, arbitrary: fc.constantFrom(...PATHS) },
  { weight: 1, arbitrary: fc.constantFrom(...FIELDS.slice(30)) },
  { weight: 1, arbitrary: nastyString },
);

/** Directus filters, well-formed and not, nested up to a few levels (and sometimes far deeper). */
export const filter: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .record({
        field: fieldName,
        op: fc.constantFrom(...OPERATORS),
        value: fc.oneof(nastyValue, fc.array(nastyValue, { maxLength: 5 })),
      })
      .map(({ field, op, value }) => ({ [field]: { [op]: value } })),
    fc.record({ field: fieldName, value: nastyValue }).map(({ field, value }) => ({ [field]: value })),
    fc.array(tie('node'), { maxLength: 3 }).map((children) => ({ _and: children })),
    fc.array(tie('node'), { maxLength: 3 }).map((children) => ({ _or: children })),
    fc
      .record({
        field: fc.constantFrom('author', 'articles', 'tags', 'sections', 'title', 'nope'),
        q: fc.constantFrom('_some', '_none', null),
        inner: tie('node'),
      })
      .map(({ field, q, inner }) => ({ [field]: q ? { [q]: inner } : inner })),
  ),
})).node;

/** A filter nested `depth` levels deep (the bound is 50). */
export const deepFilter = fc.integer({ min: 40, max: 400 }).map((depth) => {
  let node: unknown = { id: { _eq: 1 } };
  for (let i = 0; i < depth; i++) node = { _and: [node] };
  return node;
});

const listOf = <T>(item: fc.Arbitrary<T>) => fc.oneof(fc.array(item, { maxLength: 6 }), item);

/** The parameters of a read, as qs would parse them or a SEARCH body holds them: a few at a time. */
const queryParts = fc.record(
  {
    fields: listOf(fieldName),
    filter: fc.oneof(
      { weight: 5, arbitrary: filter },
      { weight: 1, arbitrary: deepFilter },
      { weight: 1, arbitrary: nastyValue },
    ),
    sort: listOf(
      fc.oneof(
        fieldName,
        fieldName.map((f) => `-${f}`),
      ),
    ),
    limit: fc.oneof(nastyNumber, nastyString),
    offset: fc.oneof(nastyNumber, nastyString),
    page: fc.oneof(nastyNumber, nastyString),
    search: nastyString,
    meta: fc.oneof(fc.constantFrom('total_count', 'filter_count', '*', 'nope'), nastyString),
    deep: fc.dictionary(
      fc.constantFrom('articles', 'author', 'tags', '_limit', 'nope', ...PROTOTYPE_KEYS),
      fc.record(
        { _limit: nastyValue, _sort: listOf(fieldName), _filter: filter, _search: nastyString, _offset: nastyValue },
        { requiredKeys: [] },
      ),
    ),
    alias: fc.dictionary(fc.oneof(nastyString, prototypeKey), fc.oneof(fieldName, nastyString), { maxKeys: 3 }),
    aggregate: fc.dictionary(
      fc.constantFrom('count', 'countDistinct', 'sum', 'avg', 'min', 'max', 'nope'),
      listOf(fieldName),
      { maxKeys: 3 },
    ),
    groupBy: listOf(fieldName),
    x: nastyValue,
  },
  { requiredKeys: [] },
);

export const query: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(queryParts, fc.integer({ min: 0, max: 3 }))
  .map(([parts, keep]) => Object.fromEntries(Object.entries(parts).slice(0, keep + 1)));

/** Values of an item payload: scalars, JSON, nested relational objects and lists. */
const payloadValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyValue },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.record({ name: nastyValue, email: nastyValue, id: nastyValue }, { requiredKeys: [] }) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.oneof(
        nastyValue,
        fc.record({ tags_id: fc.oneof(nastyValue, fc.record({ name: nastyValue })) }, { requiredKeys: [] }),
      ),
      { maxLength: 3 },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        create: fc.array(fc.record({ name: nastyValue }), { maxLength: 2 }),
        update: fc.array(fc.record({ id: nastyValue }), { maxLength: 2 }),
        delete: fc.array(nastyValue, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
  },
);

export const itemPayload: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(fieldName, payloadValue, {
  maxKeys: 4,
});

/** A URL path segment of any text; a lone surrogate (which encodeURIComponent refuses) as its UTF-8 replacement. */
const pathPart = (text: string): string => {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'));
  }
};

/** One item write: method, URL and body. */
export const itemWrite = fc.oneof(
  fc
    .record({
      method: fc.constant('POST' as const),
      collection: fc.constantFrom(...COLLECTIONS),
      body: fc.oneof(itemPayload, fc.array(itemPayload, { maxLength: 3 }), nastyValue),
    })
    .map((w) => ({ method: w.method, url: `/items/${w.collection}`, body: w.body })),
  fc
    .record({
      collection: fc.constantFrom(...COLLECTIONS),
      key: fc.oneof(fc.integer({ min: -3, max: 12 }).map(String), nastyString.map(pathPart)),
      body: fc.oneof(itemPayload, nastyValue),
    })
    .map((w) => ({ method: 'PATCH' as const, url: `/items/${w.collection}/${w.key || '0'}`, body: w.body })),
  fc
    .record({
      collection: fc.constantFrom(...COLLECTIONS),
      body: fc.oneof(
        fc.record({ keys: fc.array(nastyValue, { maxLength: 4 }), data: itemPayload }),
        fc.record({ query, data: itemPayload }),
        fc.array(itemPayload, { maxLength: 3 }),
      ),
    })
    .map((w) => ({ method: 'PATCH' as const, url: `/items/${w.collection}`, body: w.body })),
  fc
    .record({
      collection: fc.constantFrom(...COLLECTIONS),
      body: fc.oneof(
        fc.record({ keys: fc.array(fc.oneof(fc.integer({ min: 1000, max: 2 ** 40 }), nastyString), { maxLength: 4 }) }),
        fc.array(nastyString, { maxLength: 3 }),
      ),
    })
    .map((w) => ({ method: 'DELETE' as const, url: `/items/${w.collection}`, body: w.body })),
);

/** A JavaScript value as a GraphQL literal (objects and lists included); strings use JSON's escapes, which GraphQL shares. */
function graphqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '0';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(graphqlLiteral).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([key]) =>
    /^[_A-Za-z][_0-9A-Za-z]*$/.test(key),
  );
  return `{${entries.map(([key, inner]) => `${key}: ${graphqlLiteral(inner)}`).join(', ')}}`;
}

const gqlName = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(...FIELDS.filter((f) => /^[_A-Za-z]\w*$/.test(f)), '__typename', 'text', 'level'),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[_a-z][_a-z0-9]{0,8}$/) },
);

const selection: fc.Arbitrary<string> = fc.letrec<{ set: string }>((tie) => ({
  set: fc
    .array(
      fc.oneof(
        { depthSize: 'small' },
        gqlName,
        fc.tuple(gqlName, gqlName).map(([alias, name]) => `${alias}: ${name}`),
        fc
          .tuple(fc.constantFrom('author', 'articles', 'tags', 'tags_id', 'sections', 'item'), tie('set'))
          .map(([name, inner]) => `${name} { ${inner} }`),
        tie('set').map((inner) => `... on articles { ${inner} }`),
        fc.constant('...F'),
      ),
      { minLength: 1, maxLength: 5 },
    )
    .map((items) => items.join(' ')),
})).set;

const rootArgs = fc
  .record(
    {
      filter,
      limit: nastyNumber,
      offset: nastyNumber,
      sort: fc.array(fieldName, { maxLength: 3 }),
      search: nastyString,
      page: nastyNumber,
    },
    { requiredKeys: [] },
  )
  .map((args) => {
    const parts = Object.entries(args).map(
      ([key, value]) =>
        `${key}: ${graphqlLiteral(key === 'limit' || key === 'offset' || key === 'page' ? Math.trunc(Number(value)) % 2 ** 31 : value)}`,
    );
    return parts.length ? `(${parts.join(', ')})` : '';
  });

/** GraphQL documents: reads and mutations over the fixture, fragments, variables, and token soup. */
export const graphqlDocument = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('articles', 'authors', 'tags', 'pages', 'articles_aggregated', 'nope'),
        rootArgs,
        selection,
        fc.boolean(),
      )
      .map(
        ([root, args, set, fragment]) =>
          `{ ${root}${args} { ${set} } }${fragment ? ` fragment F on articles { id title author { name } }` : ''}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('articles_by_id', 'authors_by_id'), nastyValue, selection)
      .map(
        ([root, id, set]) => `{ ${root}(id: ${graphqlLiteral(typeof id === 'number' ? String(id) : id)}) { ${set} } }`,
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'create_articles_item',
          'create_tags_item',
          'update_articles_item',
          'create_authors_items',
          'delete_tags_item',
        ),
        itemPayload,
        nastyValue,
      )
      .map(
        ([mutation, data, id]) =>
          `mutation { ${mutation}(${mutation.startsWith('update') || mutation.startsWith('delete') ? `id: ${graphqlLiteral(String(id))}, ` : ''}${mutation.startsWith('delete') ? '' : `data: ${graphqlLiteral(mutation.endsWith('items') ? [data] : data)}`}) { ${mutation.startsWith('delete') ? 'id' : 'id'} } }`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.constantFrom(
          '{',
          '}',
          '(',
          ')',
          '[',
          ']',
          '...',
          'fragment',
          'F',
          'on',
          'articles',
          'id',
          'query',
          'mutation',
          '$x',
          ':',
          '"s"',
          '"\\u0000"',
          '1e400',
          '@include(if: true)',
          'title',
          'author',
          '#',
          '"""',
          '!',
          '=',
          'Int',
        ),
        { maxLength: 40 },
      )
      .map((tokens) => tokens.join(' ')),
  },
);

const ARTICLE_FIELDS = [
  'id',
  'title',
  'slug',
  'body',
  'status',
  'rating',
  'views',
  'price',
  'score',
  'published',
  'publish_date',
  'published_at',
  'updated_at',
  'read_time',
  'uid',
  'metadata',
  'author',
];
const VALID_PATHS = [
  ...ARTICLE_FIELDS,
  'author.name',
  'author.email',
  'tags.tags_id.name',
  'year(publish_date)',
  'month(published_at)',
  'count(tags)',
  'author.*',
  '*',
];

/** Filters of the articles collection that parse: their values are where the databases may differ. */
const plausibleFilter: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .record({
        field: fc.constantFrom(...ARTICLE_FIELDS, 'author.name', 'year(publish_date)', 'count(tags)'),
        op: fc.constantFrom(...OPERATORS.slice(0, 20)),
        value: fc.oneof({ weight: 4, arbitrary: plausibleValue }, nastyValue),
        list: fc.array(fc.oneof({ weight: 4, arbitrary: plausibleValue }, nastyValue), { minLength: 1, maxLength: 4 }),
      })
      .map(({ field, op, value, list }) => {
        const operand = ['_in', '_nin'].includes(op)
          ? list
          : ['_between', '_nbetween'].includes(op)
            ? [list[0], list[1] ?? list[0]]
            : value;
        const path = field.split('.');
        return path.length === 2 ? { [path[0]!]: { [path[1]!]: { [op]: operand } } } : { [field]: { [op]: operand } };
      }),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((children) => ({ _and: children })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((children) => ({ _or: children })),
    fc
      .tuple(fc.constantFrom('_some', '_none'), fc.constantFrom('tags'), fc.constantFrom('tags_id'))
      .map(([q]) => ({ tags: { [q]: { tags_id: { name: { _eq: 'science' } } } } })),
  ),
})).node;

/** Reads of articles that get past parsing and reach the database. */
export const plausibleQuery: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      fields: fc.array(fc.constantFrom(...VALID_PATHS), { minLength: 1, maxLength: 4 }),
      filter: plausibleFilter,
      sort: fc.array(
        fc.constantFrom(...ARTICLE_FIELDS, 'author.name').chain((f) => fc.constantFrom(f, `-${f}`)),
        { maxLength: 3 },
      ),
      limit: fc.integer({ min: -1, max: 20 }),
      offset: fc.integer({ min: 0, max: 10 }),
      page: fc.integer({ min: 1, max: 3 }),
      search: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('Hello', 'ada', '%', '_', "'", '5', '日本', 'published') },
        nastyString,
      ),
      meta: fc.constantFrom('total_count', 'filter_count', '*'),
      aggregate: fc.record(
        {
          count: fc.constantFrom(['*'], ['id']),
          sum: fc.constantFrom(['rating'], ['price']),
          max: fc.constantFrom(['published_at'], ['views']),
        },
        { requiredKeys: [] },
      ),
      groupBy: fc.array(fc.constantFrom('status', 'author', 'year(publish_date)', 'published'), {
        minLength: 1,
        maxLength: 2,
      }),
    },
    { requiredKeys: ['fields'] },
  )
  .chain((q) => fc.integer({ min: 1, max: 4 }).map((keep) => Object.fromEntries(Object.entries(q).slice(0, keep))))
  .map((q) => (q.groupBy && !q.aggregate ? { ...q, aggregate: { count: ['*'] } } : q));

/** Whether a value holds one of the names as an object key, at any depth (the test's own oracle). */
export function hasPrototypeKey(value: unknown, only?: (key: string, inner: unknown) => boolean): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => hasPrototypeKey(item, only));
  return Object.entries(value).some(
    ([key, inner]) =>
      (only ? only(key, inner) : (PROTOTYPE_KEYS as readonly string[]).includes(key)) || hasPrototypeKey(inner, only),
  );
}

/** What a JSON body may not hold: a `__proto__` key, or `constructor` holding `prototype`. */
export const jsonBodyRefuses = (key: string, inner: unknown): boolean =>
  key === '__proto__' ||
  (key === 'constructor' && inner !== null && typeof inner === 'object' && Object.hasOwn(inner, 'prototype'));

/** An object with `key` as an own key (an object literal's `__proto__:` would set the prototype instead). */
const own = (key: string, value: unknown): Record<string, unknown> => {
  const object: Record<string, unknown> = {};
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
};

/** A value with one of the names somewhere inside it as a key. */
const withPrototypeKey: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.tuple(prototypeKey, nastyValue).map(([key, value]) => own(key, value)),
    fc.tuple(prototypeKey, tie('node')).map(([key, value]) => own(key, value)),
    fc.tuple(fieldName, tie('node')).map(([key, value]) => own(key, value)),
    fc.tuple(fc.constantFrom('_and', '_or'), tie('node')).map(([key, value]) => own(key, [value])),
  ),
})).node;

/** Reads whose query names a prototype key somewhere: each must be 400 INVALID_QUERY. */
export const prototypeQuery: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  withPrototypeKey.map((filter) => ({ filter })),
  withPrototypeKey.map((filter) => ({ filter: JSON.stringify(filter) })),
  fc.tuple(prototypeKey, withPrototypeKey).map(([key, inner]) => ({ deep: own(key, inner) })),
  fc
    .tuple(fc.constantFrom('author', 'articles'), withPrototypeKey)
    .map(([rel, f]) => ({ deep: own(rel, { _filter: f }) })),
  fc.tuple(prototypeKey, fieldName).map(([key, field]) => ({ alias: own(key, field) })),
  fc.tuple(prototypeKey, fieldName).map(([key, field]) => ({ alias: JSON.stringify(own(key, field)) })),
  fc.tuple(prototypeKey, fieldName).map(([key, field]) => ({ aggregate: own(key, [field]) })),
  fc.tuple(prototypeKey, nastyValue).map(([key, value]) => own(key, value)),
);

/** A dot path of field names with, now and then, one of the names as a segment (CSV headers, diff paths). */
const pathSegment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('name', 'email', 'bio', 'active', 'joined', 'articles', 'nope') },
  { weight: 2, arbitrary: prototypeKey },
  { weight: 1, arbitrary: fc.constantFrom('toString', 'hasOwnProperty', 'valueOf', '') },
);
const headerName = fc.array(pathSegment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'));

const csvCell = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/** An import of `authors`: CSV with fuzzed headers (dot paths, the names) or JSON/NDJSON records with the names. */
export const importFile = fc.oneof(
  fc
    .tuple(
      fc.uniqueArray(headerName, { minLength: 1, maxLength: 4 }),
      fc.array(
        fc.array(fc.oneof(nastyString, fc.constantFrom('{"__proto__":{"polluted":1}}', '{"a":1}')), {
          minLength: 4,
          maxLength: 4,
        }),
        { maxLength: 3 },
      ),
    )
    .map(([header, rows]) => ({
      type: 'text/csv',
      body: [header, ...rows.map((row) => row.slice(0, header.length))]
        .map((row) => row.map(csvCell).join(','))
        .join('\r\n'),
      refused: header.some((name) =>
        name.split('.').some((part) => (PROTOTYPE_KEYS as readonly string[]).includes(part)),
      ),
    })),
  fc
    .tuple(fc.array(fc.oneof(itemPayload, withPrototypeKey), { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([records, ndjson]) => ({
      type: ndjson ? 'application/x-ndjson' : 'application/json',
      body: ndjson ? records.map((r) => JSON.stringify(r)).join('\n') : JSON.stringify(records),
      refused: hasPrototypeKey(records, jsonBodyRefuses),
    })),
);

/** One deep-diff change whose path starts at the metadata or walks one of the names (or a built-in). */
const diffChange: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    kind: fc.constantFrom('N', 'E', 'D', 'A', 'X'),
    path: fc.tuple(
      fc.constantFrom('meta', ...PROTOTYPE_KEYS, 'toString', 'hasOwnProperty'),
      fc.array(fc.oneof(pathSegment, fc.constantFrom('note', 'options', 'width'), fc.nat(3)), { maxLength: 3 }),
    ),
    rhs: fc.oneof(nastyValue, fc.jsonValue({ maxDepth: 2 }), withPrototypeKey),
    index: fc.oneof(fc.nat(3), nastyValue),
  })
  .map(({ kind, path: [first, rest], rhs, index }) => ({
    kind,
    path: [first, ...rest],
    rhs,
    ...(kind === 'A' ? { index, item: { kind: 'N', rhs } } : {}),
  }));

/** The entries of a diff: a collection's and a field's changes. */
export const schemaDiff = fc
  .tuple(fc.array(diffChange, { maxLength: 2 }), fc.array(diffChange, { minLength: 1, maxLength: 2 }))
  .map(([collection, field]) => ({
    collections: collection.length ? [{ collection: 'articles', diff: collection }] : [],
    fields: [{ collection: 'articles', field: 'title', diff: field }],
    relations: [],
  }));

/** Whether a diff walks one of the names or holds one as a key (each must be 400 INVALID_PAYLOAD). */
export function diffRefused(diff: { collections: { diff: unknown[] }[]; fields: { diff: unknown[] }[] }): boolean {
  return [...diff.collections, ...diff.fields].some((entry) =>
    entry.diff.some((change) => {
      const { path, rhs } = change as { path: unknown[]; rhs: unknown };
      return (
        path.some((part) => (PROTOTYPE_KEYS as readonly string[]).includes(part as string)) || hasPrototypeKey(rhs)
      );
    }),
  );
}

/** A snapshot's metadata value holding one of the names as a key (a diff of it must be 400). */
export const snapshotMeta = withPrototypeKey;
