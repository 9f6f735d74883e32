/**
 * Read cases: each role (roles.ts) × list, one item, nested m2o / o2m / m2m / m2a, filter and sort on forbidden
 * fields, search, aggregates and meta counts, and "existence never revealed". Expected values are worked out from
 * the fixture table in roles.ts; the comment on a case says why when it is not obvious.
 */
import type { MatrixCase, MatrixRequest } from './case-format.js';

const FORBIDDEN = { status: 403, error: 'FORBIDDEN' } as const;
const missingArticle: MatrixRequest = { url: '/items/articles/999' };

const own: MatrixCase[] = [
  {
    name: 'lists her own articles only',
    role: 'own',
    request: { url: '/items/articles', query: { fields: 'id,title,author', sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, title: 'Hello World', author: 1 },
        { id: 2, title: 'Second Post', author: 1 },
      ],
    },
  },
  {
    name: 'reads one of her articles',
    role: 'own',
    request: { url: '/items/articles/2', query: { fields: 'id,status,rating' } },
    expect: { status: 200, data: { id: 2, status: 'published', rating: 3 } },
  },
  {
    name: 'another author’s article answers like a missing one',
    role: 'own',
    request: { url: '/items/articles/4' },
    expect: { ...FORBIDDEN, sameBodyAs: missingArticle },
  },
  {
    name: 'a draft of someone else, asked with fields, answers the same',
    role: 'own',
    request: { url: '/items/articles/3', query: { fields: 'id' } },
    expect: { ...FORBIDDEN, sameBodyAs: { url: '/items/articles/999', query: { fields: 'id' } } },
  },
  {
    name: 'sees her own author row only',
    role: 'own',
    request: { url: '/items/authors', query: { fields: 'id,name,email' } },
    expect: { status: 200, data: [{ id: 1, name: 'Ada Lovelace', email: 'ada@example.com' }] },
  },
  {
    name: 'nested m2o to her author row',
    role: 'own',
    request: { url: '/items/articles', query: { fields: 'id,author.name', sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, author: { name: 'Ada Lovelace' } },
        { id: 2, author: { name: 'Ada Lovelace' } },
      ],
    },
  },
  {
    name: 'nested o2m lists her articles',
    role: 'own',
    request: { url: '/items/authors/1', query: { fields: 'articles.title' } },
    expect: { status: 200, data: { articles: [{ title: 'Hello World' }, { title: 'Second Post' }] } },
  },
  {
    name: 'nested m2m reads the tags of her article',
    role: 'own',
    request: { url: '/items/articles/1', query: { fields: 'tags.tags_id.name' } },
    expect: { status: 200, data: { tags: [{ tags_id: { name: 'science' } }, { tags_id: { name: 'computing' } }] } },
  },
  {
    // Tag 3 (computing) is on articles 1, 4 and 5 (junction rows 2, 5, 6): only article 1 is hers.
    name: 'm2m from the other side: articles she may not read come back null',
    role: 'own',
    request: { url: '/items/tags/3', query: { fields: 'articles.id,articles.articles_id.title' } },
    expect: {
      status: 200,
      data: {
        articles: [
          { id: 2, articles_id: { title: 'Hello World' } },
          { id: 5, articles_id: null },
          { id: 6, articles_id: null },
        ],
      },
    },
  },
  { name: 'm2a pages are not hers to read', role: 'own', request: { url: '/items/pages' }, expect: FORBIDDEN },
  {
    name: 'filter on another user’s email (an unreadable row) matches nothing',
    role: 'own',
    request: {
      url: '/items/articles',
      query: { fields: 'id', filter: { author: { email: { _eq: 'alan@example.com' } } } },
    },
    expect: { status: 200, data: [] },
  },
  {
    name: 'filter on a field she may not read: author bio',
    role: 'own',
    request: { url: '/items/articles', query: { filter: { author: { bio: { _nnull: true } } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on a field she may not read: author bio',
    role: 'own',
    request: { url: '/items/authors', query: { sort: 'bio' } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on a readable field',
    role: 'own',
    request: { url: '/items/articles', query: { fields: 'id', sort: '-rating' } },
    expect: { status: 200, ids: [1, 2] },
  },
  // "body" is in the bodies of articles 1 ("First post body"), 2 ("Another body") and 6 ("Body with ...").
  {
    name: 'search finds her rows only',
    role: 'own',
    request: { url: '/items/articles', query: { fields: 'id', search: 'body', sort: 'id' } },
    expect: { status: 200, ids: [1, 2] },
  },
  {
    name: 'aggregates count her rows only',
    role: 'own',
    request: { url: '/items/articles', query: { aggregate: { count: '*', sum: 'rating', max: 'rating' } } },
    expect: { status: 200, data: [{ count: 2, sum: { rating: 8 }, max: { rating: 5 } }] },
  },
  {
    name: 'meta counts are hers',
    role: 'own',
    request: { url: '/items/articles', query: { fields: 'id', meta: '*', filter: { rating: { _gte: 4 } } } },
    expect: { status: 200, ids: [1], meta: { total_count: 2, filter_count: 1 } },
  },
  {
    name: 'm2m count counts junction rows',
    role: 'own',
    request: { url: '/items/tags/3', query: { fields: 'count(articles)' } },
    expect: { status: 200, data: { articles_count: 3 } },
  },
  {
    name: 'deep filter on the o2m keeps her rules',
    role: 'own',
    request: {
      url: '/items/authors',
      query: { fields: 'articles.id', deep: { articles: { _filter: { rating: { _lt: 5 } } } } },
    },
    expect: { status: 200, data: [{ articles: [{ id: 2 }] }] },
  },
  {
    name: 'aggregate grouped by author sees her rows',
    role: 'own',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'author' } },
    expect: { status: 200, data: [{ author: 1, count: 2 }] },
  },
  {
    name: 'o2m count counts her articles',
    role: 'own',
    request: { url: '/items/authors', query: { fields: 'id,count(articles)' } },
    expect: { status: 200, data: [{ id: 1, articles_count: 2 }] },
  },
];

const published: MatrixCase[] = [
  {
    name: 'lists published articles only',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id,status', sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, status: 'published' },
        { id: 2, status: 'published' },
        { id: 4, status: 'published' },
        { id: 6, status: 'published' },
      ],
    },
  },
  {
    name: '* expands to the granted fields only',
    role: 'published',
    request: { url: '/items/articles/2' },
    expect: {
      status: 200,
      data: { id: 2, title: 'Second Post', slug: 'second-post', status: 'published', rating: 3, author: 1, tags: [] },
    },
  },
  // Article 2's only junction row (3) links tag 2, whose junction rows this role may not read.
  {
    name: 'm2m lists and counts leave hidden junction rows out',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id,tags,count(tags)', sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, tags: [1, 2], tags_count: 2 },
        { id: 2, tags: [], tags_count: 0 },
        { id: 4, tags: [4, 5], tags_count: 2 },
        { id: 6, tags: [], tags_count: 0 },
      ],
    },
  },
  {
    name: 'm2m filter never matches a hidden junction row',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id', filter: { tags: { _some: { tags_id: { _eq: 2 } } } } } },
    expect: { status: 200, ids: [] },
  },
  {
    name: 'm2m _none treats hidden junction rows as absent',
    role: 'published',
    request: {
      url: '/items/articles',
      query: { fields: 'id', sort: 'id', filter: { tags: { _none: { tags_id: { _in: [1, 2] } } } } },
    },
    expect: { status: 200, ids: [2, 6] },
  },
  {
    name: 'a hidden junction row answers like a missing one',
    role: 'published',
    request: { url: '/items/articles_tags/3' },
    expect: { ...FORBIDDEN, sameBodyAs: { url: '/items/articles_tags/99' } },
  },
  {
    name: 'a draft answers like a missing article',
    role: 'published',
    request: { url: '/items/articles/3' },
    expect: { ...FORBIDDEN, sameBodyAs: missingArticle },
  },
  {
    name: 'an archived article too',
    role: 'published',
    request: { url: '/items/articles/5', query: { fields: 'title' } },
    expect: { ...FORBIDDEN, sameBodyAs: { url: '/items/articles/999', query: { fields: 'title' } } },
  },
  {
    name: 'an ungranted field is refused',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id,body' } },
    expect: FORBIDDEN,
  },
  {
    name: 'nested m2o to authors',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id,author.name', sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, author: { name: 'Ada Lovelace' } },
        { id: 2, author: { name: 'Ada Lovelace' } },
        { id: 4, author: { name: 'Alan Turing' } },
        { id: 6, author: null },
      ],
    },
  },
  {
    name: 'nested m2o to an ungranted field',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'author.email' } },
    expect: FORBIDDEN,
  },
  {
    // Alan's draft (3) and Grace's archived article (5) are left out of the lists and the counts.
    name: 'nested o2m and its count hold published articles only',
    role: 'published',
    request: { url: '/items/authors', query: { fields: 'id,articles,count(articles)', sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, articles: [1, 2], articles_count: 2 },
        { id: 2, articles: [4], articles_count: 1 },
        { id: 3, articles: [], articles_count: 0 },
      ],
    },
  },
  {
    name: 'o2m filter never matches a hidden draft',
    role: 'published',
    request: {
      url: '/items/authors',
      query: { fields: 'id', filter: { articles: { _some: { status: { _eq: 'draft' } } } } },
    },
    expect: { status: 200, data: [] },
  },
  {
    name: 'o2m _none sees hidden rows as absent',
    role: 'published',
    request: {
      url: '/items/authors',
      query: { fields: 'id', filter: { articles: { _none: { status: { _eq: 'published' } } } } },
    },
    expect: { status: 200, ids: [3] },
  },
  {
    name: 'm2m junction keys are readable',
    role: 'published',
    request: { url: '/items/articles/4', query: { fields: 'tags.id,tags.tags_id' } },
    expect: {
      status: 200,
      data: {
        tags: [
          { id: 4, tags_id: 1 },
          { id: 5, tags_id: 3 },
        ],
      },
    },
  },
  {
    name: 'm2m into tags, which it may not read',
    role: 'published',
    request: { url: '/items/articles/4', query: { fields: 'tags.tags_id.name' } },
    expect: FORBIDDEN,
  },
  {
    name: 'm2m filter through tags, which it may not read',
    role: 'published',
    request: { url: '/items/articles', query: { filter: { tags: { tags_id: { name: { _eq: 'science' } } } } } },
    expect: FORBIDDEN,
  },
  {
    // Page 1: section 1 is heading 1 (level 1, readable); section 2 is a paragraph, outside the selection: its key.
    name: 'm2a item of a readable collection',
    role: 'published',
    request: { url: '/items/pages/1', query: { fields: 'sections.id,sections.item:headings.text' } },
    expect: {
      status: 200,
      data: {
        sections: [
          { id: 1, item: { text: 'Welcome' } },
          { id: 2, item: '1' },
        ],
      },
    },
  },
  {
    name: 'm2a expanded over every allowed collection, one of them unreadable',
    role: 'published',
    request: { url: '/items/pages/2', query: { fields: 'sections.item.*' } },
    expect: FORBIDDEN,
  },
  {
    // Page 2: section 3 is heading 2, level 2, hidden by the level-1 rule: null, as an m2o to a hidden row.
    name: 'm2a item hidden by its collection’s rule reads null',
    role: 'published',
    request: {
      url: '/items/pages/2',
      query: {
        fields: 'sections.id,sections.item:headings.text',
        deep: { sections: { _filter: { collection: { _eq: 'headings' } } } },
      },
    },
    expect: { status: 200, data: { sections: [{ id: 3, item: null }] } },
  },
  {
    name: 'm2a into paragraphs, which it may not read',
    role: 'published',
    request: { url: '/items/pages/1', query: { fields: 'sections.item:paragraphs.body' } },
    expect: FORBIDDEN,
  },
  {
    name: 'filter on an ungranted field',
    role: 'published',
    request: { url: '/items/articles', query: { filter: { body: { _contains: 'body' } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'filter on an ungranted related field',
    role: 'published',
    request: { url: '/items/articles', query: { filter: { author: { email: { _eq: 'ada@example.com' } } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on an ungranted field',
    role: 'published',
    request: { url: '/items/articles', query: { sort: '-price' } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on an ungranted related field',
    role: 'published',
    request: { url: '/items/articles', query: { sort: 'author.email' } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on a granted related field',
    role: 'published',
    request: {
      url: '/items/articles',
      query: { fields: 'id', sort: '-author.name,id', filter: { author: { _nnull: true } } },
    },
    expect: { status: 200, ids: [4, 1, 2] },
  },
  // "body" appears in article bodies only, which this role may not read; "compilers" is the archived article.
  {
    name: 'search ignores ungranted fields',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id', search: 'body' } },
    expect: { status: 200, ids: [] },
  },
  {
    name: 'search never finds a hidden article',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id', search: 'compilers' } },
    expect: { status: 200, ids: [] },
  },
  {
    name: 'search on granted fields',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id', search: 'post', sort: 'id' } },
    expect: { status: 200, ids: [2] },
  },
  {
    name: 'aggregates over published rows',
    role: 'published',
    request: { url: '/items/articles', query: { aggregate: { count: '*', sum: 'rating', min: 'rating' } } },
    expect: { status: 200, data: [{ count: 4, sum: { rating: 13 }, min: { rating: 1 } }] },
  },
  {
    name: 'group by sees one status',
    role: 'published',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'status' } },
    expect: { status: 200, data: [{ status: 'published', count: 4 }] },
  },
  {
    name: 'aggregate on an ungranted field',
    role: 'published',
    request: { url: '/items/articles', query: { aggregate: { sum: 'price' } } },
    expect: FORBIDDEN,
  },
  {
    name: 'group by an ungranted field',
    role: 'published',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'publish_date' } },
    expect: FORBIDDEN,
  },
  {
    name: 'meta counts published rows',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id', meta: '*', filter: { rating: { _lt: 4 } }, sort: 'id' } },
    expect: { status: 200, ids: [2, 6], meta: { total_count: 4, filter_count: 2 } },
  },
  {
    name: 'deep filter on an ungranted field',
    role: 'published',
    request: {
      url: '/items/authors',
      query: { fields: 'articles.id', deep: { articles: { _filter: { body: { _nnull: true } } } } },
    },
    expect: FORBIDDEN,
  },
  {
    name: 'deep sort on an ungranted field',
    role: 'published',
    request: { url: '/items/authors', query: { fields: 'articles.id', deep: { articles: { _sort: ['price'] } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'deep search never finds a hidden article',
    role: 'published',
    request: {
      url: '/items/authors',
      query: { fields: 'id,articles', sort: 'id', deep: { articles: { _search: 'ideas' } } },
    },
    expect: {
      status: 200,
      data: [
        { id: 1, articles: [] },
        { id: 2, articles: [] },
        { id: 3, articles: [] },
      ],
    },
  },
  {
    name: 'an alias of an ungranted field',
    role: 'published',
    request: { url: '/items/articles', query: { fields: 'id,text', alias: { text: 'body' } } },
    expect: FORBIDDEN,
  },
  {
    name: '_or mixing a granted and an ungranted field',
    role: 'published',
    request: { url: '/items/articles', query: { filter: { _or: [{ id: { _eq: 1 } }, { price: { _gt: 0 } }] } } },
    expect: FORBIDDEN,
  },
  {
    name: 'count() in a filter counts published articles only',
    role: 'published',
    request: { url: '/items/authors', query: { fields: 'id', filter: { 'count(articles)': { _eq: 1 } } } },
    expect: { status: 200, ids: [2] },
  },
  {
    // Heading 2 ("Our story", level 2) is hidden: a filter through the m2a never matches it.
    name: 'm2a filter never matches a hidden heading',
    role: 'published',
    request: {
      url: '/items/pages',
      query: { fields: 'id', filter: { sections: { _some: { 'item:headings': { text: { _eq: 'Our story' } } } } } },
    },
    expect: { status: 200, ids: [] },
  },
  {
    name: 'm2a filter on a readable heading',
    role: 'published',
    request: {
      url: '/items/pages',
      query: { fields: 'id', filter: { sections: { _some: { 'item:headings': { text: { _eq: 'Welcome' } } } } } },
    },
    expect: { status: 200, ids: [1] },
  },
  {
    name: 'm2a filter through paragraphs, which it may not read',
    role: 'published',
    request: {
      url: '/items/pages',
      query: { filter: { sections: { _some: { 'item:paragraphs': { body: { _nnull: true } } } } } },
    },
    expect: FORBIDDEN,
  },
  {
    name: 'SEARCH with a body query, same rules',
    role: 'published',
    request: {
      method: 'SEARCH',
      url: '/items/articles',
      body: { query: { fields: ['id'], filter: { status: { _neq: 'published' } } } },
    },
    expect: { status: 200, data: [] },
  },
  {
    name: 'no access to paragraphs at all',
    role: 'published',
    request: { url: '/items/paragraphs' },
    expect: FORBIDDEN,
  },
  {
    name: 'a hidden heading answers like a missing one',
    role: 'published',
    request: { url: '/items/headings/2' },
    expect: { ...FORBIDDEN, sameBodyAs: { url: '/items/headings/99' } },
  },
];

const subset: MatrixCase[] = [
  {
    name: '* expands to id, title, status, author, rating and publish_date',
    role: 'subset',
    request: { url: '/items/articles/1' },
    expect: {
      status: 200,
      data: { id: 1, title: 'Hello World', status: 'published', rating: 5, author: 1, publish_date: null },
    },
  },
  {
    // rating is granted on published articles only: the draft (3, null anyway) and the archived one (5) read null.
    name: 'every row, rating null where its rule does not hold',
    role: 'subset',
    request: { url: '/items/articles', query: { sort: 'id' } },
    expect: {
      status: 200,
      ids: [1, 2, 3, 4, 5, 6],
      nullOn: { field: 'rating', ids: [3, 5] },
      absent: ['body', 'slug', 'price', 'tags'],
    },
  },
  {
    name: 'one archived article: rating null',
    role: 'subset',
    request: { url: '/items/articles/5', query: { fields: 'id,rating' } },
    expect: { status: 200, data: { id: 5, rating: null } },
  },
  {
    name: 'an ungranted field is refused',
    role: 'subset',
    request: { url: '/items/articles/1', query: { fields: 'body' } },
    expect: FORBIDDEN,
  },
  {
    name: 'an ungranted alias (tags) is refused',
    role: 'subset',
    request: { url: '/items/articles/1', query: { fields: 'tags' } },
    expect: FORBIDDEN,
  },
  {
    name: 'a missing article is forbidden too',
    role: 'subset',
    request: missingArticle,
    expect: { ...FORBIDDEN, sameBodyAs: { url: '/items/articles/abc' } },
  },
  {
    // Grace (author of 5) is inactive, so hidden: the m2o reads null; the key held by the article stays.
    name: 'nested m2o to a hidden author reads null',
    role: 'subset',
    request: {
      url: '/items/articles',
      query: {
        fields: 'id,author,writer.name',
        alias: { writer: 'author' },
        sort: 'id',
        filter: { id: { _in: [4, 5] } },
      },
    },
    expect: {
      status: 200,
      data: [
        { id: 4, author: 2, writer: { name: 'Alan Turing' } },
        { id: 5, author: 3, writer: null },
      ],
    },
  },
  {
    name: '*.* expands the author, null when hidden',
    role: 'subset',
    request: { url: '/items/articles/5', query: { fields: '*.*' } },
    expect: {
      status: 200,
      data: { id: 5, title: 'Compilers', status: 'archived', rating: null, author: null, publish_date: '2023-06-30' },
    },
  },
  {
    name: 'hidden author rows',
    role: 'subset',
    request: { url: '/items/authors', query: { sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, name: 'Ada Lovelace' },
        { id: 2, name: 'Alan Turing' },
      ],
    },
  },
  {
    name: 'the o2m alias is not granted',
    role: 'subset',
    request: { url: '/items/authors', query: { fields: 'articles.id' } },
    expect: FORBIDDEN,
  },
  {
    name: 'o2m filter through the ungranted alias',
    role: 'subset',
    request: { url: '/items/authors', query: { filter: { articles: { _some: { id: { _eq: 1 } } } } } },
    expect: FORBIDDEN,
  },
  { name: 'm2m junction not readable', role: 'subset', request: { url: '/items/articles_tags' }, expect: FORBIDDEN },
  {
    name: 'm2a across headings and paragraphs, in section order',
    role: 'subset',
    request: {
      url: '/items/pages/2',
      query: { fields: 'title,sections.item:headings.text,sections.item:paragraphs.body' },
    },
    expect: {
      status: 200,
      data: {
        title: 'About',
        sections: [
          { item: { text: 'Our story' } },
          { item: { body: 'We began in a garage.' } },
          { item: { body: 'Hello there.' } },
        ],
      },
    },
  },
  {
    name: 'relational filter never matches a hidden author',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', filter: { author: { name: { _eq: 'Grace Hopper' } } } } },
    expect: { status: 200, ids: [] },
  },
  // Article 5's rating (2) is hidden: filters see null there.
  {
    name: 'filter on a guarded field sees null where hidden',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', filter: { rating: { _lte: 2 } }, meta: '*' } },
    expect: { status: 200, ids: [6], meta: { total_count: 6, filter_count: 1 } },
  },
  {
    name: 'filter on an ungranted field',
    role: 'subset',
    request: { url: '/items/articles', query: { filter: { price: { _gt: 0 } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'filter on an ungranted related field',
    role: 'subset',
    request: { url: '/items/articles', query: { filter: { author: { email: { _null: true } } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on a guarded field orders by what is visible',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', sort: 'rating', filter: { rating: { _nnull: true } } } },
    expect: { status: 200, ids: [6, 2, 4, 1] },
  },
  {
    name: 'sort on an ungranted field',
    role: 'subset',
    request: { url: '/items/articles', query: { sort: 'body' } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on an ungranted related field',
    role: 'subset',
    request: { url: '/items/articles', query: { sort: 'author.email' } },
    expect: FORBIDDEN,
  },
  // "post" is in the title of 2 and the body of 1 (not granted).
  {
    name: 'search looks at granted fields only',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', search: 'post' } },
    expect: { status: 200, ids: [2] },
  },
  // "2" matches id 2, author 2 (articles 3, 4) and rating 2 — the last on article 5, where rating is hidden.
  {
    name: 'numeric search skips hidden values',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', search: '2', sort: 'id' } },
    expect: { status: 200, ids: [2, 3, 4] },
  },
  {
    name: 'aggregates use visible values only',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { count: '*', sum: 'rating', countDistinct: 'author' } } },
    expect: { status: 200, data: [{ count: 6, sum: { rating: 13 }, countDistinct: { author: 3 } }] },
  },
  {
    name: 'group by a granted field',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'status' } },
    expect: {
      status: 200,
      unordered: true,
      data: [
        { status: 'archived', count: 1 },
        { status: 'draft', count: 1 },
        { status: 'published', count: 4 },
      ],
    },
  },
  {
    name: 'aggregate on an ungranted field',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { avg: 'score' } } },
    expect: FORBIDDEN,
  },
  {
    name: 'avg of a guarded field averages visible values',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { avg: 'rating', max: 'rating', count: 'rating' } } },
    expect: { status: 200, data: [{ avg: { rating: 3.25 }, max: { rating: 5 }, count: { rating: 4 } }] },
  },
  {
    // Ratings as visible: 5, 3, null (draft), 4, null (archived: hidden), 1.
    name: 'group by a guarded field groups what is visible',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'rating' } },
    expect: {
      status: 200,
      unordered: true,
      data: [
        { rating: null, count: 2 },
        { rating: 1, count: 1 },
        { rating: 3, count: 1 },
        { rating: 4, count: 1 },
        { rating: 5, count: 1 },
      ],
    },
  },
  {
    // Article 5's author (Grace) is hidden and 6 has none: both fall in the null group.
    name: 'group by a related field: hidden rows group as null',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'author.name' } },
    expect: {
      status: 200,
      unordered: true,
      data: [
        { author: { name: null }, count: 2 },
        { author: { name: 'Ada Lovelace' }, count: 2 },
        { author: { name: 'Alan Turing' }, count: 2 },
      ],
    },
  },
  {
    name: 'group by an ungranted related field',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'author.bio' } },
    expect: FORBIDDEN,
  },
  {
    name: 'filter _eq on a hidden value',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', filter: { rating: { _eq: 2 } } } },
    expect: { status: 200, ids: [] },
  },
  {
    name: 'filter _null sees hidden values as null',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', filter: { rating: { _null: true } }, sort: 'id' } },
    expect: { status: 200, ids: [3, 5] },
  },
  {
    name: 'a single archived article with a filter on its hidden rating',
    role: 'subset',
    request: {
      url: '/items/articles',
      query: { fields: 'id', filter: { _and: [{ id: { _eq: 5 } }, { rating: { _gte: 0 } }] } },
    },
    expect: { status: 200, ids: [] },
  },
  // publish_date is visible on the archived article only (2023-06-30); the others' dates, all in 2024, are hidden.
  {
    name: 'a function of a guarded field is null where hidden',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id,year(publish_date)', sort: 'id' } },
    expect: { status: 200, data: [1, 2, 3, 4, 5, 6].map((id) => ({ id, publish_date_year: id === 5 ? 2023 : null })) },
  },
  {
    name: 'a filter on a function of a guarded field',
    role: 'subset',
    request: { url: '/items/articles', query: { fields: 'id', filter: { 'year(publish_date)': { _eq: 2024 } } } },
    expect: { status: 200, ids: [] },
  },
  {
    name: 'a date range over hidden dates',
    role: 'subset',
    request: {
      url: '/items/articles',
      query: { fields: 'id', filter: { publish_date: { _between: ['2024-01-01', '2024-12-31'] } } },
    },
    expect: { status: 200, ids: [] },
  },
  {
    name: 'group by a function of a guarded field',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { count: '*' }, groupBy: 'year(publish_date)' } },
    expect: {
      status: 200,
      unordered: true,
      data: [
        { publish_date_year: null, count: 5 },
        { publish_date_year: 2023, count: 1 },
      ],
    },
  },
  {
    name: 'max of a guarded date',
    role: 'subset',
    request: { url: '/items/articles', query: { aggregate: { max: 'publish_date', countDistinct: 'publish_date' } } },
    expect: { status: 200, data: [{ max: { publish_date: '2023-06-30' }, countDistinct: { publish_date: 1 } }] },
  },
  {
    name: 'sort on a guarded date',
    role: 'subset',
    request: {
      url: '/items/articles',
      query: { fields: 'id', sort: '-publish_date', filter: { publish_date: { _nnull: true } } },
    },
    expect: { status: 200, ids: [5] },
  },
  {
    name: 'meta counts every row',
    role: 'subset',
    request: { url: '/items/authors', query: { fields: 'id', meta: 'total_count' } },
    expect: { status: 200, ids: [1, 2], meta: { total_count: 2 } },
  },
];

const none: MatrixCase[] = [
  { name: 'list', role: 'none', request: { url: '/items/articles' }, expect: FORBIDDEN },
  {
    name: 'one item answers like a missing one',
    role: 'none',
    request: { url: '/items/articles/1' },
    expect: { ...FORBIDDEN, sameBodyAs: missingArticle },
  },
  {
    name: 'an unknown collection answers like a known one',
    role: 'none',
    request: { url: '/items/nope' },
    expect: { status: 403, error: 'FORBIDDEN' },
  },
  {
    name: 'aggregate',
    role: 'none',
    request: { url: '/items/articles', query: { aggregate: { count: '*' } } },
    expect: FORBIDDEN,
  },
  { name: 'search', role: 'none', request: { url: '/items/tags', query: { search: 'science' } }, expect: FORBIDDEN },
  { name: 'meta', role: 'none', request: { url: '/items/authors', query: { meta: '*' } }, expect: FORBIDDEN },
  {
    name: 'SEARCH body',
    role: 'none',
    request: { method: 'SEARCH', url: '/items/articles', body: { query: { fields: ['id'] } } },
    expect: FORBIDDEN,
  },
  {
    name: 'm2a pages',
    role: 'none',
    request: { url: '/items/pages/1', query: { fields: 'sections.item:headings.text' } },
    expect: FORBIDDEN,
  },
];

const anonymous: MatrixCase[] = [
  {
    name: 'public tags',
    role: 'public',
    request: { url: '/items/tags', query: { sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, name: 'science' },
        { id: 2, name: 'history' },
        { id: 3, name: 'computing' },
        { id: 4, name: 'unused' },
      ],
    },
  },
  {
    name: 'one public tag',
    role: 'public',
    request: { url: '/items/tags/3' },
    expect: { status: 200, data: { id: 3, name: 'computing' } },
  },
  {
    name: 'a missing tag answers like a tag that cannot exist',
    role: 'public',
    request: { url: '/items/tags/99' },
    expect: { ...FORBIDDEN, sameBodyAs: { url: '/items/tags/not-a-key' } },
  },
  {
    name: 'an article answers like a missing one',
    role: 'public',
    request: { url: '/items/articles/1' },
    expect: { ...FORBIDDEN, sameBodyAs: missingArticle },
  },
  {
    name: 'the tag m2m alias is not granted',
    role: 'public',
    request: { url: '/items/tags', query: { fields: 'articles' } },
    expect: FORBIDDEN,
  },
  { name: 'articles are not public', role: 'public', request: { url: '/items/articles' }, expect: FORBIDDEN },
  {
    name: 'pages without their sections',
    role: 'public',
    request: { url: '/items/pages', query: { sort: 'id' } },
    expect: {
      status: 200,
      data: [
        { id: 1, title: 'Home' },
        { id: 2, title: 'About' },
        { id: 3, title: 'Empty' },
      ],
      absent: ['sections'],
    },
  },
  {
    name: 'm2a sections are not public',
    role: 'public',
    request: { url: '/items/pages/1', query: { fields: 'sections.item:headings.text' } },
    expect: FORBIDDEN,
  },
  {
    name: 'search and meta over public tags',
    role: 'public',
    request: { url: '/items/tags', query: { fields: 'name', search: 'is', meta: '*' } },
    expect: { status: 200, data: [{ name: 'history' }], meta: { total_count: 4, filter_count: 1 } },
  },
  {
    name: 'public aggregate',
    role: 'public',
    request: { url: '/items/tags', query: { aggregate: { count: '*', max: 'id' } } },
    expect: { status: 200, data: [{ count: 4, max: { id: 4 } }] },
  },
  {
    name: 'filter on an ungranted relation',
    role: 'public',
    request: { url: '/items/tags', query: { filter: { articles: { _some: { id: { _eq: 1 } } } } } },
    expect: FORBIDDEN,
  },
  {
    name: 'sort on an ungranted relation',
    role: 'public',
    request: { url: '/items/pages', query: { sort: 'sections.id' } },
    expect: FORBIDDEN,
  },
];

/** The same requests as admin: the fixture really holds what the hidden cases rely on. */
const admin: MatrixCase[] = [
  {
    name: 'search "body" matches three bodies',
    role: 'admin',
    request: { url: '/items/articles', query: { fields: 'id', search: 'body', sort: 'id' } },
    expect: { status: 200, ids: [1, 2, 6] },
  },
  {
    name: 'article 5 is the one rated 2',
    role: 'admin',
    request: { url: '/items/articles', query: { fields: 'id', filter: { rating: { _eq: 2 } } } },
    expect: { status: 200, ids: [5] },
  },
  {
    name: 'sum of every rating',
    role: 'admin',
    request: { url: '/items/articles', query: { aggregate: { sum: 'rating' } } },
    expect: { status: 200, data: [{ sum: { rating: 15 } }] },
  },
  {
    name: 'the heading hidden from published exists',
    role: 'admin',
    request: { url: '/items/headings/2', query: { fields: 'level' } },
    expect: { status: 200, data: { level: 2 } },
  },
  {
    name: 'tag 3 is on three articles',
    role: 'admin',
    request: { url: '/items/tags/3', query: { fields: 'articles.articles_id.id' } },
    expect: {
      status: 200,
      data: { articles: [{ articles_id: { id: 1 } }, { articles_id: { id: 4 } }, { articles_id: { id: 5 } }] },
    },
  },
  {
    name: 'four articles were published in 2024',
    role: 'admin',
    request: {
      url: '/items/articles',
      query: { fields: 'id', filter: { 'year(publish_date)': { _eq: 2024 } }, sort: 'id' },
    },
    expect: { status: 200, ids: [1, 2, 4, 6] },
  },
  {
    name: 'the latest publish date',
    role: 'admin',
    request: { url: '/items/articles', query: { aggregate: { max: 'publish_date' } } },
    expect: { status: 200, data: [{ max: { publish_date: '2024-03-10' } }] },
  },
  { name: 'a missing article', role: 'admin', request: missingArticle, expect: FORBIDDEN },
];

export const cases: MatrixCase[] = [...own, ...published, ...subset, ...none, ...anonymous, ...admin];
