/**
 * What the bench asks Strata, over the dataset of bench/dataset.ts. Each scenario is one GET, the same URL for Strata
 * and for the ceiling.
 */
export interface Scenario {
  /** Short key: a, b, c... (BENCH_SCENARIOS=a,c picks some). */
  id: string;
  name: string;
  path: string;
}

export const SCENARIOS: Scenario[] = [
  { id: 'a', name: 'list 25', path: '/items/articles?limit=25' },
  { id: 'b', name: 'list 25 + m2o + m2m', path: '/items/articles?limit=25&fields=*,author.*,tags.tags_id.*' },
  { id: 'c', name: 'filter + sort, 100', path: '/items/articles?filter[status][_eq]=published&sort=-published_at&limit=100' },
  {
    id: 'd',
    name: '3 levels, deep limit',
    path: '/items/authors?limit=10&fields=id,name,articles.id,articles.title,articles.tags.tags_id.name&deep[articles][_limit]=5&deep[articles][_sort]=-published_at',
  },
  { id: 'e', name: 'aggregate + groupBy', path: '/items/articles?aggregate[count]=*&aggregate[avg]=rating&groupBy[]=status&groupBy[]=author' },
];

/** Scenario (c) again once the articles have grown to `rows` (a million unless BENCH_LARGE_ROWS says otherwise). */
export function largeScenario(rows: number): Scenario {
  const count = rows % 1_000_000 === 0 ? `${rows / 1_000_000}M` : rows.toLocaleString('en-US');
  return { id: 'c-large', name: `filter + sort, 100 (${count} articles)`, path: SCENARIOS[2]!.path };
}

/** The scenarios named in a comma list (`a,c`), or all of them. */
export function selectScenarios(list: string | undefined): Scenario[] {
  if (!list) return SCENARIOS;
  const wanted = list.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: unknown scenario ${unknown.join(', ')} (known: ${SCENARIOS.map((s) => s.id).join(', ')})`);
  return SCENARIOS.filter((s) => wanted.includes(s.id));
}
