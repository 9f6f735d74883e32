/**
 * What the caller may read, as the planner asks it: per collection, the rows visible at all and, per field, where
 * its value may be shown. Admins get FULL_ACCESS; everyone else a policy-based one (policy-access.ts).
 */
import type { CollectionOverview } from '../schema/types.js';
import type { PlannedFilter } from './read-plan.js';

export interface CollectionAccess {
  /** Rows the caller may read (OR of its rules); null = every row. */
  filter: PlannedFilter | null;
  /**
   * Where `field` may be read: undefined = nowhere (the field does not exist for this caller), null = on every
   * visible row, a filter = only on the rows where it holds (elsewhere the value reads as null).
   */
  guard(field: string): PlannedFilter | null | undefined;
}

export interface AccessPolicy {
  /** null = the collection may not be read at all. */
  read(collection: CollectionOverview): CollectionAccess | null;
}

const FULL: CollectionAccess = { filter: null, guard: () => null };

export const FULL_ACCESS: AccessPolicy = { read: () => FULL };
