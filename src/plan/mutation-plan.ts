/**
 * A write resolved against the schema and the caller: rows to create, update or delete, with their nested relational
 * writes, values already coerced and validated. Planned twice, both times purely (plan/mutation-planner.ts): a draft
 * before the transaction (every check that needs no database; `upsert` rows still open), then, inside the
 * transaction, the draft with the lookups (which rows exist and may be touched, which rows are linked) and the
 * argon2 hashes made before the transaction opened → the plan (plan/write-resolution.ts), in which every row is a
 * `create` or an `update` with its final values. The executor (engine/write/mutation-executor.ts) runs that plan as it
 * is, never changing it: parents (m2o / a2o) first, then the rows, then their o2m children and junction rows. Keys
 * the database assigns, and the foreign keys that carry them, are the executor's own state.
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
  /** Known key (given, generated uuid, or the row to update); null when the database assigns it. */
  key: Key | null;
  /** Logical column values by field name. Parents' keys and the o2m parent's key are added by the executor. */
  values: Record<string, unknown>;
  /** Fields of `values` whose plain value is hashed (argon2) before the transaction starts; hashed in the plan. */
  hashFields: string[];
  /** m2o / a2o objects: written before this row; their key fills `field`. */
  parents: ParentWrite[];
  /** o2m (and m2m / m2a junction) writes that follow this row. */
  children: ChildWrites[];
  /** The o2m foreign key the parent row fills (not required in the payload). */
  filledByParent: string | null;
  /** A non-admin's upsert (draft): its payload, checked against the rules of the action its key lookup decides. */
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
  /** Plan only: rows linked to the parent now that get the relation's deselect action (unlinked or deleted). */
  deselect: Key[];
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

/** Keys of one collection found by a lookup, as strings of their logical form → whether the lookup's guard held. */
export type FoundKeys = ReadonlyMap<string, boolean>;

/**
 * What the lookup stage (engine/write/write-lookups.ts) read inside the transaction, for the planner to resolve a
 * draft with. A key missing from a map is a row that does not exist.
 */
export interface WriteLookups {
  /** Per collection: rows named by updates, upserts and bare-key links, guarded by the caller's update rule. */
  updatable: ReadonlyMap<string, FoundKeys>;
  /** Per collection: rows a delete or a `delete` deselect action would remove, guarded by the caller's delete rule. */
  deletable: ReadonlyMap<string, FoundKeys>;
  /** Per `linkKey(related, foreign key, parent key)`: keys of the rows linked to that parent now. */
  linked: ReadonlyMap<string, readonly Key[]>;
  /** A singleton's row: its key, or null when it has none yet (only for singleton writes). */
  singleton?: Key | null;
}

export function linkKey(related: string, foreignKey: string, parent: Key): string {
  return `${related}\u0000${foreignKey}\u0000${String(parent)}`;
}

/** argon2 hashes made before the transaction: per draft row, plain value → hash (payload values and presets). */
export type WriteHashes = ReadonlyMap<RowWrite, ReadonlyMap<string, string>>;
