/**
 * What the bench asks Strata, over the dataset of bench/dataset.ts. Each scenario is one GET, the same URL for Strata
 * and for the ceiling. `b-gql` asks (b) through GraphQL (a GET of /graphql): the same rows and fields in one
 * statement; the o2m key lists that `*` adds (`author.articles`, `tags_id.articles`) are `{id}` objects in GraphQL,
 * which has no keys-only form of a relation. `b-fields` / `b-fields-gql` ask the same named fields (no key lists)
 * through REST and GraphQL: the cost of the front end alone.
 */
export interface Scenario {
  /** Short key: a, b, c... (BENCH_SCENARIOS=a,c picks some). */
  id: string;
  name: string;
  path: string;
}

const ARTICLE =
  'id title slug body status rating views price score published publish_date published_at updated_at read_time uid metadata title_length';
const AUTHOR = 'id name email bio active joined';
const graphqlPath = (root: string) => `/graphql?query=${encodeURIComponent(`{ ${root} }`)}`;

export const SCENARIOS: Scenario[] = [
  { id: 'a', name: 'list 25', path: '/items/articles?limit=25' },
  { id: 'b', name: 'list 25 + m2o + m2m', path: '/items/articles?limit=25&fields=*,author.*,tags.tags_id.*' },
  {
    id: 'b-gql',
    name: '(b) through GraphQL',
    path: graphqlPath(
      `articles(limit: 25) { ${ARTICLE} author { ${AUTHOR} articles { id } } tags { tags_id { id name articles { id } } } }`,
    ),
  },
  {
    id: 'b-fields',
    name: '(b) with named fields',
    path: `/items/articles?limit=25&fields=${[...ARTICLE.split(' '), ...AUTHOR.split(' ').map((f) => `author.${f}`), 'tags.tags_id.id', 'tags.tags_id.name'].join(',')}`,
  },
  {
    id: 'b-fields-gql',
    name: '(b) with named fields, GraphQL',
    path: graphqlPath(`articles(limit: 25) { ${ARTICLE} author { ${AUTHOR} } tags { tags_id { id name } } }`),
  },
  {
    id: 'c',
    name: 'filter + sort, 100',
    path: '/items/articles?filter[status][_eq]=published&sort=-published_at&limit=100',
  },
  {
    id: 'd',
    name: '3 levels, deep limit',
    path: '/items/authors?limit=10&fields=id,name,articles.id,articles.title,articles.tags.tags_id.name&deep[articles][_limit]=5&deep[articles][_sort]=-published_at',
  },
  {
    id: 'e',
    name: 'aggregate + groupBy',
    path: '/items/articles?aggregate[count]=*&aggregate[avg]=rating&groupBy[]=status&groupBy[]=author',
  },
];

/** Not a GET against a ceiling but a run of its own (bench/assets.ts); named in BENCH_SCENARIOS like the others. */
export const ASSETS_SCENARIO = 'assets';

/** Whether the assets scenario runs: with every scenario, or when the comma list names it. */
export function assetsSelected(list: string | undefined): boolean {
  return !list || list.split(',').some((s) => s.trim() === ASSETS_SCENARIO);
}

/** The scenarios named in a comma list (`a,c`), or all of them (the assets scenario apart: see assetsSelected). */
export function selectScenarios(list: string | undefined): Scenario[] {
  if (!list) return SCENARIOS;
  const wanted = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s !== ASSETS_SCENARIO);
  const unknown = wanted.filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length)
    throw new Error(
      `BENCH_SCENARIOS: unknown scenario ${unknown.join(', ')} (known: ${[...SCENARIOS.map((s) => s.id), ASSETS_SCENARIO].join(', ')})`,
    );
  return SCENARIOS.filter((s) => wanted.includes(s.id));
}
