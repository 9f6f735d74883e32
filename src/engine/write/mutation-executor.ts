/**
 * Runs a resolved MutationPlan (plan/write-resolution.ts) inside one transaction, level by level so that statements
 * stay few: the m2o / a2o parents of a level are written first (recursively, as one level), then the rows themselves
 * — creates as multi-row INSERTs per collection and column set, updates grouped by identical values — then their
 * o2m children (again one level), links of bare keys, and the deselect actions the plan lists. The plan is not
 * changed: keys the database assigns, and the foreign keys that carry them to other rows, are this executor's own
 * state. Every check and lookup was done before the plan was made; this file only writes. Database errors become
 * catalogue errors naming the collection and field. SQL text comes from sql/write-compiler.ts.
 */
import type { Executor } from '../../db/connection.js';
import type { Dialect } from '../../db/dialect.js';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { DatabaseError } from '../../errors/database-error.js';
import { translateFailure, type DatabaseFailure, type WriteTarget } from '../../errors/database-failure.js';
import type { ChildWrites, DeletePlan, Key, RowWrite } from '../../plan/mutation-plan.js';
import { hasCompositeKey, isKeyField, keyFieldsOf, keyOfValues } from '../../plan/row-key.js';
import { coerceKey } from '../../plan/value-coercion.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../../schema/types.js';
import type { CompiledStatement } from '../../sql/statement.js';
import {
  compileDeletes,
  compileInserts,
  compileKeyLookups,
  compileUpdates,
  type WriteHooks,
} from '../../sql/write-compiler.js';
import { keyColumnsOf, keyValuesOf } from './write-lookups.js';
import { ChangeRecorder } from './change-events.js';
import { recordCascades } from './cascade-changes.js';
import { AuditRecorder, type AuditEntry } from './audit-trail.js';
import type { Row } from '../../db/connection.js';

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Database-assigned keys ascend in insertion order; comparing them as integers maps them back to the rows. */
function ascending(a: Key, b: Key): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export class MutationExecutor {
  private readonly hooks: WriteHooks;
  /** Keys of the plan's rows: planned, or assigned by the database as they are inserted. */
  private readonly keys = new Map<RowWrite, Key>();
  /** Values the plan leaves to execution: parents' keys, and the o2m parent's key of a child row. */
  private readonly filled = new Map<RowWrite, Row>();
  /** The row whose payload nested each nested row (its revision is the nested row's parent). */
  private readonly nestedIn = new Map<RowWrite, RowWrite>();
  /** Each written row's audit entry. */
  private readonly audited = new Map<RowWrite, AuditEntry>();

  constructor(
    private readonly tx: Executor,
    private readonly dialect: Dialect,
    private readonly schema: SchemaOverview,
    /** Collects what the statements change, for the change events emitted after commit. */
    private readonly changes: ChangeRecorder = new ChangeRecorder(),
    /** Collects the items changed, for the activity and revisions written before commit (audit-trail.ts). */
    private readonly audit: AuditRecorder = new AuditRecorder(),
  ) {
    this.hooks = { sql: dialect.sql, write: dialect.write };
  }

  /** Writes the plan's rows with everything nested under them; answers each top-level row's key. */
  async write(rows: readonly RowWrite[]): Promise<Key[]> {
    await this.writeRows(rows);
    return rows.map((row) => this.keyOf(row)!);
  }

  /** Deletes the plan's rows (checked against the lookups when the plan was made). */
  async delete(plan: DeletePlan): Promise<void> {
    const { collection, keys } = plan;
    if (keys.length === 0) return;
    await recordCascades(this.tx, this.schema, this.hooks, this.changes, collection, keys);
    for (const statement of compileDeletes(
      collection.schema!.name,
      keyColumnsOf(collection),
      keyValuesOf(collection, keys),
      this.hooks,
    )) {
      await this.run(statement, { collection, rows: [] }, true);
    }
    this.changes.record(collection.collection, 'delete', keys);
    for (const key of keys) this.audit.record({ action: 'delete', collection, key, delta: null, parent: null });
  }

  private keyOf(row: RowWrite): Key | null {
    return this.keys.get(row) ?? row.key;
  }

  private valuesOf(row: RowWrite): Row {
    const filled = this.filled.get(row);
    return filled ? { ...row.values, ...filled } : row.values;
  }

  private fill(row: RowWrite, field: string, value: unknown): void {
    this.filled.set(row, { ...this.filled.get(row), [field]: value });
  }

  private async writeRows(rows: readonly RowWrite[]): Promise<void> {
    if (rows.length === 0) return;
    for (const row of rows)
      if (row.action === 'upsert')
        throw new Error(`An unresolved upsert of ${row.collection.collection} reached the executor`);
    // A parent several rows share (a batch update's m2o object) is written once.
    const parents = [...new Set(rows.flatMap((row) => row.parents.map((parent) => parent.row)))];
    for (const row of rows) {
      for (const parent of row.parents) if (!this.nestedIn.has(parent.row)) this.nestedIn.set(parent.row, row);
      for (const set of row.children) for (const child of [...set.rows, ...set.updates]) this.nestedIn.set(child, row);
    }
    await this.writeRows(parents);
    for (const row of rows) {
      for (const parent of row.parents)
        this.fill(row, parent.field, this.parentValue(row, parent.field, parent.row, parent.anyCollection));
    }
    const creates = rows.filter((row) => row.action === 'create');
    const updates = rows.filter((row) => row.action === 'update');
    await this.insertRows(creates);
    await this.updateRows(updates);
    // An update whose only change is nested (its o2m items) is still an update of that item, as Directus reports it.
    for (const row of creates)
      this.changes.record(row.collection.collection, 'create', [this.keyOf(row)!], this.valuesOf(row));
    for (const row of updates)
      this.changes.record(row.collection.collection, 'update', [this.keyOf(row)!], this.valuesOf(row));
    for (const row of rows) this.recordAudit(row);
    await this.writeChildren(rows);
  }

  /**
   * A row's audit entry, made when the row or the first row it nested is written (m2o parents are written before the
   * row that holds them), filled and recorded once the row itself is written.
   */
  private entryOf(row: RowWrite): AuditEntry {
    let entry = this.audited.get(row);
    if (!entry) {
      const outer = this.nestedIn.get(row);
      const action = row.action === 'create' ? 'create' : 'update';
      entry = { action, collection: row.collection, key: '', delta: null, parent: outer ? this.entryOf(outer) : null };
      this.audited.set(row, entry);
    }
    return entry;
  }

  private recordAudit(row: RowWrite): void {
    const entry = this.entryOf(row);
    entry.key = this.keyOf(row)!;
    entry.delta = this.valuesOf(row);
    this.audit.record(entry);
  }

  /** The value a row stores for its parent: the parent's key (as text for a2o), or the field an m2o refers to. */
  private parentValue(row: RowWrite, field: string, parent: RowWrite, anyCollection: boolean): unknown {
    const key = this.keyOf(parent);
    if (anyCollection) return String(key);
    const link = row.collection.links[field];
    const referenced = link?.kind === 'm2o' ? link.relatedField : parent.collection.primary;
    return referenced === parent.collection.primary ? key : this.valuesOf(parent)[referenced!];
  }

  /**
   * Creates, per collection and column set, as multi-row INSERTs. Keys the database assigns come back through
   * RETURNING; auto-increment keys ascend in row order, so sorting them maps each to its row whatever order the
   * database returns them in. Keys from other column defaults are read one row at a time.
   */
  private async insertRows(rows: RowWrite[]): Promise<void> {
    const entries = rows.map((row) => {
      const values = this.valuesOf(row);
      const key = row.key ?? (hasCompositeKey(row.collection) ? (keyOfValues(row.collection, values) ?? null) : null);
      if (key !== null) this.keys.set(row, key);
      return { row, values, key };
    });
    const groups = groupBy(
      entries,
      ({ row, values, key }) =>
        `${row.collection.collection}\u0000${key === null ? '' : 'k'}\u0000${Object.keys(values).sort().join('\u0000')}`,
    );
    for (const group of groups.values()) {
      const collection = group[0]!.row.collection;
      const columns = Object.keys(group[0]!.values).map((name) => collection.fields[name]!);
      const values = group.map((entry) => entry.values);
      const table = collection.schema!.name;
      const target: WriteTarget = { collection, rows: values };
      if (group[0]!.key !== null) {
        for (const statement of compileInserts(table, columns, values, this.hooks, null))
          await this.run(statement, target);
        continue;
      }
      if (hasCompositeKey(collection)) {
        // Some key column is filled by the database (a default or an auto-increment part): each row returns its key.
        for (const entry of group) {
          const [statement] = compileInserts(table, columns, [entry.values], this.hooks, keyFieldsOf(collection));
          const [returned] = await this.run(statement!, { collection, rows: [entry.values] });
          const key = returned ? keyOfValues(collection, returned) : null;
          if (key === null || key === undefined) throw new Error(`The database returned no key for ${table}`);
          this.keys.set(entry.row, key);
        }
        continue;
      }
      const primary = keyFieldsOf(collection)[0]!;
      if (!primary.schema?.has_auto_increment) {
        for (const entry of group) {
          const [statement] = compileInserts(table, columns, [entry.values], this.hooks, primary);
          const [returned] = await this.run(statement!, { collection, rows: [entry.values] });
          this.keys.set(entry.row, this.returnedKey(primary, returned?.[primary.field]));
        }
        continue;
      }
      let offset = 0;
      for (const statement of compileInserts(table, columns, values, this.hooks, primary)) {
        const returned = await this.run(statement, target);
        const keys = returned.map((r) => this.returnedKey(primary, r[primary.field])).sort(ascending);
        for (const key of keys) this.keys.set(group[offset++]!.row, key);
      }
      if (offset !== group.length)
        throw new Error(`INSERT into ${table} returned ${offset} keys for ${group.length} rows`);
    }
  }

  private returnedKey(primary: FieldOverview, value: unknown): Key {
    const key = coerceKey(primary, value);
    if (key === null) throw new Error(`The database returned no key for ${primary.field}`);
    return key;
  }

  /** Updates grouped by collection and identical values, so the same change to many rows is one statement. */
  private async updateRows(rows: RowWrite[]): Promise<void> {
    const changing = rows
      .map((row) => ({ row, values: this.valuesOf(row) }))
      .filter(({ values }) => Object.keys(values).length > 0);
    const groups = groupBy(
      changing,
      ({ row, values }) =>
        `${row.collection.collection}\u0000${JSON.stringify(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : 1)))}`,
    );
    for (const group of groups.values()) {
      const collection = group[0]!.row.collection;
      const values = Object.entries(group[0]!.values).map(
        ([name, value]) => [collection.fields[name]!, value] as [FieldOverview, unknown],
      );
      const keys = group.map(({ row }) => this.keyOf(row)!);
      for (const statement of compileUpdates(
        collection.schema!.name,
        values,
        keyColumnsOf(collection),
        keyValuesOf(collection, keys),
        this.hooks,
      )) {
        await this.run(statement, { collection, rows: [group[0]!.values] });
      }
    }
  }

  /** o2m writes of every row of a level: child rows (one level), bare-key links, then deselect actions. */
  private async writeChildren(rows: readonly RowWrite[]): Promise<void> {
    const sets: { parentKey: Key; set: ChildWrites; row: RowWrite }[] = [];
    for (const row of rows) {
      for (const set of row.children) {
        const local = set.link.localField;
        const parentKey = (local === row.collection.primary ? this.keyOf(row) : this.valuesOf(row)[local]) as
          Key | null | undefined;
        if (parentKey === null || parentKey === undefined)
          throw new InvalidPayloadError(`Writing "${set.link.field}" needs "${local}" in the same payload`);
        const fk = set.link.relatedField;
        for (const child of [...set.rows, ...set.updates]) {
          // An existing row of a composite key that holds the foreign key is already the parent's.
          if (!(child.action === 'update' && isKeyField(child.collection, fk))) this.fill(child, fk, parentKey);
        }
        sets.push({ parentKey, set, row });
      }
    }
    if (sets.length === 0) return;
    await this.writeRows(sets.flatMap(({ set }) => [...set.rows, ...set.updates]));
    for (const { parentKey, set, row } of sets) {
      const fk = set.related.fields[set.link.relatedField]!;
      const assigned = [...new Map(set.assign.map((key) => [String(key), key])).values()];
      if (assigned.length > 0) await this.updateKeys(set.related, assigned, fk, parentKey, row);
    }
    for (const { set, row } of sets) {
      if (set.deselect.length === 0) continue;
      const { related, link } = set;
      const fk = related.fields[link.relatedField]!;
      if (link.deselectAction === 'delete') {
        await recordCascades(this.tx, this.schema, this.hooks, this.changes, related, set.deselect);
        for (const statement of compileDeletes(
          related.schema!.name,
          keyColumnsOf(related),
          keyValuesOf(related, set.deselect),
          this.hooks,
        )) {
          await this.run(statement, { collection: related, rows: [{ [fk.field]: null }] }, true);
        }
        this.changes.record(related.collection, 'delete', set.deselect);
        const parent = this.entryOf(row);
        for (const key of set.deselect)
          this.audit.record({ action: 'delete', collection: related, key, delta: null, parent });
      } else {
        await this.updateKeys(related, set.deselect, fk, null, row);
      }
    }
  }

  /** Sets the foreign key `fk` of the rows `keys` of `related` (a link, or an unlink with null). */
  private async updateKeys(
    related: CollectionOverview,
    keys: readonly Key[],
    fk: FieldOverview,
    value: Key | null,
    nestedIn: RowWrite,
  ): Promise<void> {
    for (const statement of compileUpdates(
      related.schema!.name,
      [[fk, value]],
      keyColumnsOf(related),
      keyValuesOf(related, keys),
      this.hooks,
    )) {
      await this.run(statement, { collection: related, rows: [{ [fk.field]: value }] });
    }
    this.changes.record(related.collection, 'update', keys);
    const parent = this.entryOf(nestedIn);
    for (const key of keys)
      this.audit.record({ action: 'update', collection: related, key, delta: { [fk.field]: value }, parent });
  }

  /** Runs a statement; a database error becomes the catalogue error naming the collection and field. */
  private async run(
    statement: CompiledStatement,
    target: WriteTarget | null,
    deleting = false,
  ): Promise<Record<string, unknown>[]> {
    try {
      return await this.tx.query(statement.sql, statement.params);
    } catch (error) {
      // The database's reading of a refused write (a copy: the field may be filled in below).
      const failed = error instanceof DatabaseError && error.failure ? { ...error.failure } : null;
      if (!failed || !target) throw error;
      if (failed.kind === 'foreign_key' && !failed.column) {
        if (deleting) Object.assign(failed, { column: target.collection.keyFields[0] ?? null, referenced: true });
        else failed.column = await this.missingReference(target);
      }
      if (failed.kind === 'unique' && failed.value === null && failed.column)
        failed.value = await this.duplicateValue(target, failed.column);
      throw translateFailure(failed, target, this.schema);
    }
  }

  /** For drivers that do not quote it (SQLite): the written value of a unique field that a row already holds. */
  private async duplicateValue(target: WriteTarget, name: string): Promise<string | null> {
    const field = target.collection.fields[name];
    const values = target.rows
      .map((row) => row[name])
      .filter((v): v is Key => typeof v === 'string' || typeof v === 'number');
    if (!field || values.length === 0) return null;
    const repeated = values.find((value, i) => values.indexOf(value) !== i);
    if (repeated !== undefined) return String(repeated);
    try {
      for (const statement of compileKeyLookups(
        target.collection.schema!.name,
        field,
        [...new Set(values)],
        this.hooks,
      )) {
        const [row] = await this.tx.query(statement.sql, statement.params);
        if (row) return String(row.key);
      }
    } catch {
      // A courtesy, as for foreign keys.
    }
    return null;
  }

  /** For drivers that do not name it (SQLite): the written foreign-key field whose value has no row to refer to. */
  private async missingReference(target: WriteTarget): Promise<DatabaseFailure['column']> {
    const { collection } = target;
    try {
      for (const name of new Set(target.rows.flatMap((row) => Object.keys(row)))) {
        const field = collection.fields[name];
        const link = collection.links[name];
        const relatedName = link?.kind === 'm2o' ? link.related : field?.schema?.foreign_key_table;
        const related = relatedName ? this.schema.collections[relatedName] : undefined;
        const relatedFieldName = link?.kind === 'm2o' ? link.relatedField : field?.schema?.foreign_key_column;
        const relatedField = related && relatedFieldName ? related.fields[relatedFieldName] : undefined;
        if (!field || !related?.schema || !relatedField) continue;
        const values = [
          ...new Set(
            target.rows.map((row) => row[name]).filter((v): v is Key => typeof v === 'string' || typeof v === 'number'),
          ),
        ];
        if (values.length === 0) continue;
        const found = new Set<string>();
        for (const statement of compileKeyLookups(related.schema.name, relatedField, values, this.hooks)) {
          for (const row of await this.tx.query(statement.sql, statement.params)) found.add(String(row.key));
        }
        if (values.some((v) => !found.has(String(v)))) return name;
      }
    } catch {
      // The diagnosis is a courtesy: without it the error names no field.
    }
    return null;
  }
}
