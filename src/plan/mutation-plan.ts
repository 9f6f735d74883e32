/**
 * A write resolved against the schema and the caller: rows to create, update or delete, with their nested relational
 * writes, values already coerced and validated. The executor (services/mutation-executor.ts) runs it in one
 * transaction: parents (m2o / a2o) first, then the rows, then their o2m children and junction rows.
 */
import type { CollectionOverview, RelationalLink } from '../schema/types.js';

export type Key = string | number;

export type O2mLink = Extract<RelationalLink, { kind: 'o2m' }>;

export interface RowWrite {
  collection: CollectionOverview;
  /**
   * `create` inserts; `update` changes an existing row (FORBIDDEN when it does not exist); `upsert` is a nested
   * object that names a key: updated when the row exists, created with that key otherwise (as Directus does).
   */
  action: 'create' | 'update' | 'upsert';
  /** Known key (given, generated uuid, or the row to update); null until the database assigns it. */
  key: Key | null;
  /** Logical column values by field name. Parents' keys and the o2m parent's key are added during execution. */
  values: Record<string, unknown>;
  /** Fields of `values` whose plain value is hashed (argon2) before the transaction starts. */
  hashFields: string[];
  /** m2o / a2o objects: written before this row; their key fills `field`. */
  parents: ParentWrite[];
  /** o2m (and m2m / m2a junction) writes that follow this row. */
  children: ChildWrites[];
  /** The o2m foreign key the parent row fills (not required in the payload). */
  filledByParent: string | null;
  /** A non-admin's upsert: its payload, checked against the rules of the action its key lookup decides. */
  payload?: Record<string, unknown>;
  /** Where the item sits in the request body (`[]` for a single top-level item), for error messages. */
  path: (string | number)[];
}

export interface ParentWrite {
  /** The m2o / a2o field of the row that receives the parent's key. */
  field: string;
  /** a2o: the key is stored as text in a column that serves several collections. */
  anyCollection: boolean;
  row: RowWrite;
}

export interface ChildWrites {
  link: O2mLink;
  related: CollectionOverview;
  /** Basic (array) form: rows linked to the parent and not named get the relation's deselect action. */
  replace: boolean;
  /** Objects (created, or upserted when they name a key); their foreign key is set to the parent's key. */
  rows: RowWrite[];
  /** Detailed form `update`: existing rows, updated and linked. */
  updates: RowWrite[];
  /** Bare keys: existing rows linked to the parent. */
  assign: Key[];
  /** Detailed form `delete`: rows removed from the relation (deselect action) where they are linked to the parent. */
  remove: Key[];
}

export interface MutationPlan {
  collection: CollectionOverview;
  rows: RowWrite[];
  /** Rows the plan surely creates, updates or deletes, nested ones included (MAX_BATCH_MUTATION). */
  rowCount: number;
}

export interface DeletePlan {
  collection: CollectionOverview;
  keys: Key[];
}
