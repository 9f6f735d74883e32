/**
 * What the write compiler and the mutation executor ask of a dialect. Implemented in
 * src/db/dialects/<vendor>/write-hooks.ts; nothing outside those files names a vendor.
 */
import type { ColumnInfo, FieldOverview } from '../schema/types.js';

export interface WriteDialect {
  /** Opens a transaction (committed with `commit`, undone with `rollback`). */
  readonly begin: string;
  /** Most bound parameters one statement may carry; multi-row statements are cut to fit. */
  readonly maxParameters: number;
  /** A logical value (see plan/write-values.ts) → what the driver binds for this column on a write. */
  bind(field: FieldOverview, value: unknown): unknown;
  /**
   * A numbered placeholder may appear more than once and binds the same value each time: a multi-row INSERT binds a
   * value shared by every row once per statement instead of once per row.
   */
  readonly reusesParameters?: boolean;
  /** An INSERT of one row of column defaults (a create that names no column); `table` is quoted. */
  defaultRowInsert(table: string): string;
  /**
   * Rows handed to the database as one JSON parameter (`rowsParameter(rows)`: an array of arrays, values as `bind`
   * gives them), read back as a FROM item `alias` with one column per entry of `columns` (named and typed) and
   * `ord`, the row's position: an INSERT ... SELECT then binds one parameter, not one per value.
   */
  jsonRows(parameter: string, columns: readonly JsonRowColumn[], alias: string): string;
  rowsParameter(rows: readonly (readonly unknown[])[]): unknown;
  /**
   * `jsonRows` read on their own (beside one-row constants) come in array order, and an INSERT ... SELECT numbers them
   * in that order, so it needs no ORDER BY — where sorting them is costly (rows holding long text sorted through a
   * temporary table). Constants are then bound as a one-row derived table `(select ? as a, ...)`, which the database
   * reads once before the rows.
   */
  readonly jsonRowsInOrder?: boolean;
  /**
   * An INSERT whose foreign keys hold by construction (the trail's revisions name activity and parent rows the same
   * transaction wrote just before), run without checking them row by row where the database allows that for one
   * statement; the constraints stay declared (and cascade) as before. Absent: the INSERT as it is.
   */
  uncheckedReferences?(insert: string): string;
  /**
   * INSERTs may stand in a WITH with RETURNING and later parts of the statement read the rows they answered (the
   * audit trail is then one statement: sql/trail-compiler.ts `compileTrailWith`).
   */
  readonly insertsInWith?: boolean;
  /**
   * The JSON text of an object whose values are the columns given (a revision's `data`: an admin read of an item's
   * columns), equal to `jsonText(jsonObject(...))` of their wire values, built where that is cheaper (by
   * concatenating each value's JSON text, where the compact text otherwise takes a compaction that re-parses the
   * whole object). Absent: `jsonText(jsonObject(...))`.
   */
  rowObjectText?(values: readonly RowObjectValue[]): string;
}

/** One member of `rowObjectText`: its key, the column expression it reads and the field it is. */
export interface RowObjectValue {
  key: string;
  column: string;
  field: FieldOverview;
}

/** A column of `jsonRows`: its name and what it holds (the type it is compared or stored as). */
export interface JsonRowColumn {
  name: string;
  type: 'integer' | 'text' | 'varchar' | 'uuid' | 'timestamp';
  /**
   * The table column these values are compared with (an item's key), when there is one: the dialect declares them as
   * that column's type and collation, so that the comparison is allowed and served by the column's index.
   */
  like?: ColumnInfo | null;
}
