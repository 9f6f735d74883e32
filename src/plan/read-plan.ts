/**
 * A read resolved against the schema and the caller: what the SQL compiler turns into one statement. Values in
 * filters are already coerced to their logical wire form (see value-coercion.ts); dialects bind them.
 */
import type { FilterOperator } from '../request/query.js';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';

export type PlannedFilter =
  | { kind: 'and' | 'or'; children: PlannedFilter[] }
  | { kind: 'compare'; field: FieldOverview; operator: FilterOperator; value: unknown }
  /** A search term or key set that can match nothing (or everything). */
  | { kind: 'constant'; value: boolean };

export interface PlannedField {
  /** Key in the response object. */
  key: string;
  field: FieldOverview;
}

export interface PlannedSort {
  field: FieldOverview;
  descending: boolean;
}

export interface ReadPlan {
  collection: CollectionOverview;
  /** Table name (quoted by the dialect). */
  table: string;
  fields: PlannedField[];
  /** Rows visible at all (permissions); total_count counts these. null = every row. */
  accessFilter: PlannedFilter | null;
  /** accessFilter AND the user's filter, search and keys; the rows returned and filter_count. */
  filter: PlannedFilter | null;
  sort: PlannedSort[];
  /** null = no limit. */
  limit: number | null;
  offset: number;
  meta: { totalCount: boolean; filterCount: boolean };
  /** One object (read by key, singleton) instead of an array. */
  single: boolean;
}
