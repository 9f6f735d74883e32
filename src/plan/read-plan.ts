/**
 * A read resolved against the schema and the caller: a tree of levels (one per collection reached) that the SQL
 * compiler turns into one statement. Values in filters are already coerced to their logical wire form (see
 * value-coercion.ts); dialects bind them.
 */
import type { JsonPathSegment } from '../request/json-path.js';
import type { FilterOperator } from '../request/query.js';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';

/** Date parts that function fields extract; all yield integers. */
export type DatePart = 'year' | 'month' | 'week' | 'day' | 'weekday' | 'hour' | 'minute' | 'second';

/**
 * How rows of `collection` relate to a row of the level above: `related.relatedField = current.localField`, or for
 * m2a (a2o) `current.anyCollectionField = '<collection>' AND related.relatedField = key-of(current.localField)`.
 */
export interface Join {
  collection: CollectionOverview;
  table: string;
  relatedField: FieldOverview;
  localField: FieldOverview;
  /** a2o: the current row's column naming the related collection; its key is held as text in `localField`. */
  anyCollectionField: FieldOverview | null;
}

/** A value computed for a row: a column, a function of one, a count of related rows, or a value through m2o hops. */
export type Operand =
  | { kind: 'field'; field: FieldOverview }
  | { kind: 'date-part'; part: DatePart; field: FieldOverview }
  | { kind: 'count-related'; join: Join; filter: PlannedFilter | null }
  | { kind: 'json-length'; field: FieldOverview }
  /** `json(field, path)`: the JSON value at `path` inside a JSON column (null where there is none). */
  | { kind: 'json-path'; field: FieldOverview; path: JsonPathSegment[] }
  /** Through an m2o hop; `filter` restricts the related row (the caller's read access there). */
  /**
   * The operand on the related row of a hop. m2o and scoped m2a hops reach one row; an o2m hop (sorts only) reaches
   * many, and `pick` says which value stands for them: the smallest for ascending sorts, the largest for descending.
   */
  | { kind: 'related'; join: Join; operand: Operand; filter: PlannedFilter | null; pick?: 'min' | 'max' }
  /** A value the caller may read only where `guard` holds; null elsewhere. */
  | { kind: 'guarded'; guard: PlannedFilter; operand: Operand };

export type PlannedFilter =
  | { kind: 'and' | 'or'; children: PlannedFilter[] }
  /** `field` decides how values bind (a synthetic integer field for functions and counts). */
  | { kind: 'compare'; operand: Operand; field: FieldOverview; operator: FilterOperator; value: unknown }
  | { kind: 'not'; child: PlannedFilter }
  /** Some (or, negated, no) related row matches `filter`. Never inflates counts. */
  | { kind: 'exists'; join: Join; filter: PlannedFilter | null; negate: boolean }
  /** A search term or key set that can match nothing (or everything). */
  | { kind: 'constant'; value: boolean };

export interface PlannedSort {
  operand: Operand;
  /** The field whose comparison rules apply (null placement, date normalisation). */
  field: FieldOverview;
  descending: boolean;
}

/** Every output may carry a guard: the caller may read it only on rows where the guard holds (null elsewhere). */
export type PlannedOutput = { guard: PlannedFilter | null } &
  /**
   * A scalar in the wire format of `field` (functions and counts: integers); `as` asks for another JSON form
   * (GraphQL's: `ID` as text, `Float` as a number).
   */
  (
    | { kind: 'value'; key: string; operand: Operand; field: FieldOverview; as?: 'text' | 'number' }
    /** m2o expanded: the related object, or null. */
    | { kind: 'object'; key: string; join: Join; level: ReadLevel }
    /** o2m expanded: an array of objects; or, with `scalar`, an array of that value (unexpanded: the keys). */
    | {
        kind: 'list';
        key: string;
        join: Join;
        level: ReadLevel;
        scalar: { operand: Operand; field: FieldOverview } | null;
      }
    /** a2o expanded: the related object from whichever allowed collection the row names; other rows keep the raw key. */
    | {
        kind: 'any';
        key: string;
        field: FieldOverview;
        collectionField: FieldOverview;
        branches: { collection: string; join: Join; level: ReadLevel }[];
      }
  );

/** One collection's rows at one place in the tree. */
export interface ReadLevel {
  collection: CollectionOverview;
  /** Table name (quoted by the dialect). */
  table: string;
  outputs: PlannedOutput[];
  /** Rows visible at all (permissions); total_count counts these. null = every row. */
  accessFilter: PlannedFilter | null;
  /** accessFilter AND the user's filter, search and keys; the rows returned and filter_count. */
  filter: PlannedFilter | null;
  sort: PlannedSort[];
  /** null = no limit. */
  limit: number | null;
  offset: number;
}

export interface PlannedAggregate {
  /** Response path: ['count'] for count(*), ['sum', 'price'] for sum(price). */
  path: string[];
  fn: 'count' | 'countDistinct' | 'countAll' | 'sum' | 'sumDistinct' | 'avg' | 'avgDistinct' | 'min' | 'max';
  /** null = all rows (`*`). */
  field: FieldOverview | null;
  /** The field's value as the caller may read it (guarded where only some rules grant it). */
  operand: Operand | null;
}

export interface PlannedGroup {
  /** Response path (nested for m2o paths: ['author', 'name']). */
  path: string[];
  operand: Operand;
  field: FieldOverview;
}

export interface ReadPlan extends ReadLevel {
  meta: { totalCount: boolean; filterCount: boolean };
  /** One object (read by key, singleton) instead of an array. */
  single: boolean;
  /** Present for aggregate reads: the rows are groups, `outputs` and `sort` are empty. */
  aggregate: AggregatePlan | null;
}

export interface AggregatePlan {
  groups: PlannedGroup[];
  aggregates: PlannedAggregate[];
  /** By group or aggregate (`sort=-count`, `sort=sum.price`); default: the first group. */
  sort: { target: 'group' | 'aggregate'; index: number; descending: boolean }[];
}
