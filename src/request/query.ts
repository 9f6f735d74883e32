/**
 * The Query IR: one typed representation of a read. REST query strings, SEARCH bodies and (later) GraphQL
 * selections all parse into it. It is schema-agnostic: names are checked against the schema by the planner.
 */

export const FILTER_OPERATORS = [
  '_eq',
  '_neq',
  '_ieq',
  '_nieq',
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_in',
  '_nin',
  '_null',
  '_nnull',
  '_contains',
  '_ncontains',
  '_icontains',
  '_nicontains',
  '_starts_with',
  '_nstarts_with',
  '_istarts_with',
  '_nistarts_with',
  '_ends_with',
  '_nends_with',
  '_iends_with',
  '_niends_with',
  '_between',
  '_nbetween',
  '_empty',
  '_nempty',
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** A value resolved at plan time from the request's context. */
export type DynamicValue =
  | { dynamic: 'NOW'; /** signed offset in milliseconds, e.g. $NOW(-1 year) */ offsetMs: number }
  /** `$CURRENT_USER`, or with a path `$CURRENT_USER.role.name` (a value of the caller's user row or beyond). */
  | { dynamic: 'CURRENT_USER'; path?: string[] }
  | { dynamic: 'CURRENT_ROLE'; path?: string[] }
  /** The caller's role and its ancestors / its policies: lists, for `_in` and `_nin`. */
  | { dynamic: 'CURRENT_ROLES' }
  | { dynamic: 'CURRENT_POLICIES' };

export type ScalarValue = string | number | boolean | null | DynamicValue;

/** `_in`/`_nin`/`_between`/`_nbetween` carry arrays; `_null`/`_nnull`/`_empty`/`_nempty` carry booleans. */
export type FilterValue = ScalarValue | ScalarValue[];

export type FilterNode =
  | { type: 'logical'; operator: '_and' | '_or'; children: FilterNode[] }
  /**
   * `field` is the key as written: a field name, a function call `year(date_published)`, or an m2a scope
   * `item:headings`.
   */
  | { type: 'condition'; field: string; operator: FilterOperator; value: FilterValue }
  /** A nested object under a field: a relational path (`author: {name: {...}}`), with o2m quantifiers. */
  | { type: 'relation'; field: string; quantifier: '_some' | '_none' | null; filter: FilterNode };

export interface SortClause {
  /** Field path as written, without the leading `-` (`title`, `author.name`, `year(date)`). */
  field: string;
  order: 'asc' | 'desc';
}

export type MetaKind = 'total_count' | 'filter_count';

/** A key as a client gives it: a value, or for a composite key its string form or an object of its columns. */
export type KeyInput = string | number | Record<string, unknown>;

export interface Query {
  /** Dot paths as written (`id`, `*`, `author.name`, `year(date)`); undefined = `*`. */
  fields?: string[];
  filter?: FilterNode | null;
  /**
   * The filter's relational depth as written, for MAX_RELATIONAL_DEPTH (request/parse-filter.ts `writtenDepth`): an
   * empty rule (`{author: {}}`) is a level there, though `filter` drops it. Absent (the usual case): counted from
   * `filter`.
   */
  filterDepth?: number;
  sort?: SortClause[];
  /** -1 = no limit. */
  limit?: number;
  offset?: number;
  /** 1-based. */
  page?: number;
  search?: string;
  meta?: MetaKind[];
  /** SEARCH body `keys` / internal key lookups: read exactly these primary keys (composite keys: string or object form). */
  keys?: KeyInput[];
  /** Per relational field (by response key, `item:<collection>` for m2a scopes): its sub-query and deeper levels. */
  deep?: Record<string, DeepQuery>;
  alias?: Record<string, string>;
  aggregate?: Record<string, string[]>;
  groupBy?: string[];
}

/** `deep[<relation>]`: the sub-query of one relational level (Directus docs: Query parameters: deep). */
export interface DeepQuery {
  filter?: FilterNode | null;
  /** As Query's. */
  filterDepth?: number;
  sort?: SortClause[];
  /** -1 = no limit. */
  limit?: number;
  offset?: number;
  page?: number;
  search?: string;
  deep?: Record<string, DeepQuery>;
  /** Response keys of this level → field names (GraphQL aliases at nested levels; REST has root aliases only). */
  alias?: Record<string, string>;
}
