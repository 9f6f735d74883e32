/**
 * Runs a MutationPlan inside one transaction, level by level so that statements stay few: all rows of a level are
 * looked up together (do updates' rows exist? are upserts creates or updates?), then their m2o / a2o parents are
 * written (recursively, as one level), then the rows themselves — creates as multi-row INSERTs per collection and
 * column set, updates grouped by identical values — then their o2m children (again one level), links of bare keys,
 * and the deselect action on rows a basic-form array no longer names. Database errors become catalogue errors
 * naming the collection and field. SQL text comes from sql/write-compiler.ts; this file only orchestrates.
 */
import { hashPassword } from '../auth/passwords.js';
import type { Executor } from '../db/connection.js';
import type { Dialect } from '../db/dialect.js';
import { ForbiddenError, InvalidPayloadError, throwAll, type ServiceError } from '../errors/catalogue.js';
import { translateFailure, type DatabaseFailure, type WriteTarget } from '../errors/database-failure.js';
import type { ChildWrites, DeletePlan, Key, RowWrite } from '../plan/mutation-plan.js';
import { resolveUpsert, type WriteContext } from '../plan/mutation-planner.js';
import type { PlannedFilter } from '../plan/read-plan.js';
import { hasCompositeKey, keyFieldsOf, keyOfValues, keyParts, parseKey } from '../plan/row-key.js';
import { coerceKey } from '../plan/value-coercion.js';
import { checkField, rulesFor } from '../plan/write-rules.js';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';
import type { CompiledStatement } from '../sql/statement.js';
import {
  compileChildLookups,
  compileDeletes,
  compileGuardedKeyLookups,
  compileInserts,
  compileKeyLookups,
  compileUpdates,
  type KeyColumns,
  type KeyValue,
  type WriteHooks,
} from '../sql/write-compiler.js';

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

/** The column(s) rows of `collection` are addressed by: every column of a composite key. */
function keyColumnsOf(collection: CollectionOverview): KeyColumns {
  return hasCompositeKey(collection) ? keyFieldsOf(collection) : keyFieldsOf(collection)[0]!;
}

/** Keys as the write compiler binds them: values, or tuples of a composite key's column values. */
function keyValuesOf(collection: CollectionOverview, keys: readonly Key[]): KeyValue[] {
  return hasCompositeKey(collection) ? keys.map((key) => keyParts(collection, key)) : [...keys];
}

/** The key of a row a lookup returned (`key`, or `key0`, `key1`, ... for a composite key). */
function keyOfLookup(collection: CollectionOverview, row: Record<string, unknown>): Key | null {
  if (!hasCompositeKey(collection)) return coerceKey(keyFieldsOf(collection)[0]!, row.key);
  return parseKey(collection, Object.fromEntries(collection.keyFields.map((name, i) => [name, row[`key${i}`]])));
}

/** Database-assigned keys ascend in insertion order; comparing them as integers maps them back to the rows. */
function ascending(a: Key, b: Key): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export class MutationExecutor {
  private readonly hooks: WriteHooks;
  /** Rows unlinked or deleted by deselect actions (counted against MAX_BATCH_MUTATION with the planned rows). */
  private deselected = 0;

  constructor(
    private readonly tx: Executor,
    private readonly dialect: Dialect,
    private readonly ctx: WriteContext,
    private readonly plannedRows: number,
  ) {
    this.hooks = { sql: dialect.sql, write: dialect.write };
  }

  /** Writes rows of any collections and actions, with everything nested under them; every row ends with its key. */
  async writeRows(rows: RowWrite[]): Promise<void> {
    if (rows.length === 0) return;
    await this.resolveExisting(rows);
    const parents = rows.flatMap((row) => row.parents.map((parent) => parent.row));
    await this.writeRows(parents);
    for (const row of rows) {
      for (const parent of row.parents) row.values[parent.field] = this.parentValue(row, parent.field, parent.row, parent.anyCollection);
    }
    await this.insertRows(rows.filter((row) => row.action === 'create'));
    await this.updateRows(rows.filter((row) => row.action === 'update'));
    await this.writeChildren(rows);
  }

  /** Deletes the plan's rows; FORBIDDEN (and nothing deleted) when any of them does not exist or may not be deleted. */
  async deleteRows(plan: DeletePlan): Promise<void> {
    const { collection, keys } = plan;
    if (keys.length === 0) return;
    const existing = await this.existingKeys(collection, keys, rulesFor(this.ctx, collection, 'delete')?.filter);
    if (existing.size < keys.length || [...existing.values()].some((allowed) => !allowed)) throw new ForbiddenError();
    for (const statement of compileDeletes(collection.schema!.name, keyColumnsOf(collection), keyValuesOf(collection, keys), this.hooks)) {
      await this.run(statement, { collection, rows: [] }, true);
    }
  }

  /**
   * Which of `keys` exist in `collection` (as strings of their logical form), each with whether it satisfies `guard`
   * (a caller's item rule; none = every row).
   */
  async existingKeys(collection: CollectionOverview, keys: readonly Key[], guard?: PlannedFilter | null): Promise<Map<string, boolean>> {
    const columns = keyColumnsOf(collection);
    const values = keyValuesOf(collection, keys);
    const found = new Map<string, boolean>();
    const table = collection.schema!.name;
    const statements = guard ? compileGuardedKeyLookups(table, columns, values, guard, this.hooks) : compileKeyLookups(table, columns, values, this.hooks);
    for (const statement of statements) {
      for (const row of await this.run(statement, null)) found.set(String(keyOfLookup(collection, row)), !guard || Number(row.allowed) === 1);
    }
    return found;
  }

  /**
   * Updates must find their row and the caller's update rule must hold on it (FORBIDDEN otherwise, the same either
   * way: existence is never revealed); upserts become creates or updates (an update under the same rule).
   */
  private async resolveExisting(rows: RowWrite[]): Promise<void> {
    const keyed = rows.filter((row) => row.action === 'update' || row.action === 'upsert');
    const errors: ServiceError[] = [];
    for (const group of groupBy(keyed, (row) => row.collection.collection).values()) {
      const collection = group[0]!.collection;
      // A composite-key child named without its parent's key column learns it from the parent (writeChildren).
      if (hasCompositeKey(collection)) for (const row of group) row.key ??= this.compositeKey(row);
      const keys = [...new Map(group.map((row) => [String(row.key), row.key!])).values()];
      const guard = this.ctx.accountability.admin ? null : (this.ctx.access?.rules(collection, 'update')?.filter ?? null);
      const existing = await this.existingKeys(collection, keys, guard);
      for (const row of group) {
        const exists = existing.has(String(row.key));
        const allowed = existing.get(String(row.key)) === true;
        if (row.action === 'update' && !allowed) throw new ForbiddenError();
        if (row.action === 'upsert') {
          if (exists && !allowed) throw new ForbiddenError();
          const hashed = row.hashFields.length;
          errors.push(...resolveUpsert(row, exists, this.ctx));
          // Presets of the rules now known (create or update) may fill hash fields: hashed here, not stored plain.
          for (const name of row.hashFields.slice(hashed)) row.values[name] = await hashPassword(String(row.values[name]));
        }
      }
    }
    throwAll(errors);
  }

  /** The value a row stores for its parent: the parent's key (as text for a2o), or the field an m2o refers to. */
  private parentValue(row: RowWrite, field: string, parent: RowWrite, anyCollection: boolean): unknown {
    if (anyCollection) return String(parent.key);
    const link = row.collection.links[field];
    const referenced = link?.kind === 'm2o' ? link.relatedField : parent.collection.primary;
    return referenced === parent.collection.primary ? parent.key : parent.values[referenced!];
  }

  /**
   * Creates, per collection and column set, as multi-row INSERTs. Keys the database assigns come back through
   * RETURNING; auto-increment keys ascend in row order, so sorting them maps each to its row whatever order the
   * database returns them in. Keys from other column defaults are read one row at a time.
   */
  private async insertRows(rows: RowWrite[]): Promise<void> {
    for (const row of rows) if (row.key === null && hasCompositeKey(row.collection)) row.key = keyOfValues(row.collection, row.values) ?? null;
    const groups = groupBy(rows, (row) => `${row.collection.collection}\u0000${row.key === null ? '' : 'k'}\u0000${Object.keys(row.values).sort().join('\u0000')}`);
    for (const group of groups.values()) {
      const collection = group[0]!.collection;
      const columns = Object.keys(group[0]!.values).map((name) => collection.fields[name]!);
      const values = group.map((row) => row.values);
      const table = collection.schema!.name;
      const target: WriteTarget = { collection, rows: values };
      if (group[0]!.key !== null) {
        for (const statement of compileInserts(table, columns, values, this.hooks, null)) await this.run(statement, target);
        continue;
      }
      if (hasCompositeKey(collection)) {
        // Some key column is filled by the database (a default or an auto-increment part): each row returns its key.
        for (const row of group) {
          const [statement] = compileInserts(table, columns, [row.values], this.hooks, keyFieldsOf(collection));
          const [returned] = await this.run(statement!, { collection, rows: [row.values] });
          const key = returned ? keyOfValues(collection, returned) : null;
          if (key === null || key === undefined) throw new Error(`The database returned no key for ${table}`);
          row.key = key;
        }
        continue;
      }
      const primary = keyFieldsOf(collection)[0]!;
      if (!primary.schema?.has_auto_increment) {
        for (const row of group) {
          const [statement] = compileInserts(table, columns, [row.values], this.hooks, primary);
          const [returned] = await this.run(statement!, { collection, rows: [row.values] });
          row.key = this.returnedKey(primary, returned?.[primary.field]);
        }
        continue;
      }
      let offset = 0;
      for (const statement of compileInserts(table, columns, values, this.hooks, primary)) {
        const returned = await this.run(statement, target);
        const keys = returned.map((r) => this.returnedKey(primary, r[primary.field])).sort(ascending);
        for (const key of keys) group[offset++]!.key = key;
      }
      if (offset !== group.length) throw new Error(`INSERT into ${table} returned ${offset} keys for ${group.length} rows`);
    }
  }

  /** A composite-key row's key from its values; one missing a key column the database does not fill is refused. */
  private compositeKey(row: RowWrite): Key {
    const key = keyOfValues(row.collection, row.values);
    if (key === null || key === undefined) {
      throw new InvalidPayloadError(`An item of "${row.collection.collection}" is named by all of its key fields (${row.collection.keyFields.join(', ')})`);
    }
    return key;
  }

  private returnedKey(primary: FieldOverview, value: unknown): Key {
    const key = coerceKey(primary, value);
    if (key === null) throw new Error(`The database returned no key for ${primary.field}`);
    return key;
  }

  /** Updates grouped by collection and identical values, so the same change to many rows is one statement. */
  private async updateRows(rows: RowWrite[]): Promise<void> {
    const changing = rows.filter((row) => Object.keys(row.values).length > 0);
    const groups = groupBy(changing, (row) => `${row.collection.collection}\u0000${JSON.stringify(Object.entries(row.values).sort(([a], [b]) => (a < b ? -1 : 1)))}`);
    for (const group of groups.values()) {
      const collection = group[0]!.collection;
      const values = Object.entries(group[0]!.values).map(([name, value]) => [collection.fields[name]!, value] as [FieldOverview, unknown]);
      const keys = group.map((row) => row.key!);
      for (const statement of compileUpdates(collection.schema!.name, values, keyColumnsOf(collection), keyValuesOf(collection, keys), this.hooks)) {
        await this.run(statement, { collection, rows: [group[0]!.values] });
      }
    }
  }

  /** o2m writes of every row of a level: child rows (one level), bare-key links, then deselect actions. */
  private async writeChildren(rows: RowWrite[]): Promise<void> {
    const sets: { parentKey: Key; created: boolean; set: ChildWrites }[] = [];
    for (const row of rows) {
      for (const set of row.children) {
        const local = set.link.localField;
        const parentKey = (local === row.collection.primary ? row.key : row.values[local]) as Key | null | undefined;
        if (parentKey === null || parentKey === undefined) throw new InvalidPayloadError(`Writing "${set.link.field}" needs "${local}" in the same payload`);
        for (const child of [...set.rows, ...set.updates]) child.values[set.link.relatedField] = parentKey;
        sets.push({ parentKey, created: row.action === 'create', set });
      }
    }
    if (sets.length === 0) return;
    await this.writeRows(sets.flatMap(({ set }) => [...set.rows, ...set.updates]));
    await this.assignKeys(sets);
    await this.deselect(sets.filter(({ created, set }) => (set.replace && !created) || set.remove.length > 0));
  }

  /** Bare keys in a basic-form array: existing rows (FORBIDDEN otherwise) now linked to the parent. */
  private async assignKeys(sets: { parentKey: Key; set: ChildWrites }[]): Promise<void> {
    for (const { parentKey, set } of sets) {
      if (set.assign.length === 0) continue;
      const keys = [...new Map(set.assign.map((key) => [String(key), key])).values()];
      const existing = await this.existingKeys(set.related, keys, rulesFor(this.ctx, set.related, 'update')?.filter);
      if (existing.size < keys.length || [...existing.values()].some((allowed) => !allowed)) throw new ForbiddenError();
      const fk = set.related.fields[set.link.relatedField]!;
      for (const statement of compileUpdates(set.related.schema!.name, [[fk, parentKey]], keyColumnsOf(set.related), keyValuesOf(set.related, keys), this.hooks)) {
        await this.run(statement, { collection: set.related, rows: [{ [fk.field]: parentKey }] });
      }
    }
  }

  /**
   * Rows linked to a parent that a basic-form array no longer names, and rows of a detailed-form `delete`, get the
   * relation's deselect action: their foreign key nulled, or the rows deleted. One lookup per relation for all parents.
   */
  private async deselect(sets: { parentKey: Key; set: ChildWrites }[]): Promise<void> {
    for (const group of groupBy(sets, ({ set }) => `${set.related.collection}\u0000${set.link.relatedField}`).values()) {
      const { related, link } = group[0]!.set;
      const fk = related.fields[link.relatedField]!;
      const current = new Map<string, Key[]>();
      const parents = [...new Map(group.map(({ parentKey }) => [String(parentKey), parentKey])).values()];
      for (const statement of compileChildLookups(related.schema!.name, keyColumnsOf(related), fk, parents, this.hooks)) {
        for (const row of await this.run(statement, null)) {
          const parent = String(row.parent);
          const key = keyOfLookup(related, row);
          if (key === null) throw new Error(`A row of ${related.collection} has no key`);
          current.set(parent, [...(current.get(parent) ?? []), key]);
        }
      }
      const dropped = new Map<string, Key>();
      for (const { parentKey, set } of group) {
        const linked = current.get(String(parentKey)) ?? [];
        const kept = new Set([...set.rows, ...set.updates].map((row) => String(row.key)).concat(set.assign.map(String)));
        const removed = new Set(set.remove.map(String));
        for (const key of linked) {
          if ((set.replace && !kept.has(String(key))) || removed.has(String(key))) dropped.set(String(key), key);
        }
      }
      if (dropped.size === 0) continue;
      await this.checkDeselect(related, link, [...dropped.values()]);
      // Keys named in `delete` were counted when the write was planned; only rows an array replaces count here.
      const named = new Set(group.flatMap(({ set }) => set.remove.map(String)));
      this.deselected += [...dropped.keys()].filter((key) => !named.has(key)).length;
      if (this.plannedRows + this.deselected > this.ctx.maxBatchMutation) {
        throw new InvalidPayloadError(`Exceeded max batch mutation limit of ${this.ctx.maxBatchMutation}`);
      }
      const keys = [...dropped.values()];
      const statements =
        link.deselectAction === 'delete'
          ? compileDeletes(related.schema!.name, keyColumnsOf(related), keyValuesOf(related, keys), this.hooks)
          : compileUpdates(related.schema!.name, [[fk, null]], keyColumnsOf(related), keyValuesOf(related, keys), this.hooks);
      for (const statement of statements) await this.run(statement, { collection: related, rows: [{ [fk.field]: null }] }, link.deselectAction === 'delete');
    }
  }

  /** A deselect action is an update (nullify) or a delete of the related rows: the caller's rules for it apply. */
  private async checkDeselect(related: CollectionOverview, link: ChildWrites['link'], keys: Key[]): Promise<void> {
    if (this.ctx.accountability.admin) return;
    const action = link.deselectAction === 'delete' ? 'delete' : 'update';
    const rules = rulesFor(this.ctx, related, action);
    if (action === 'update') checkField(this.ctx, rules, related, link.relatedField, []);
    if (!rules?.filter) return;
    const existing = await this.existingKeys(related, keys, rules.filter);
    if ([...existing.values()].some((allowed) => !allowed)) throw new ForbiddenError();
  }

  /** Runs a statement; a database error becomes the catalogue error naming the collection and field. */
  private async run(statement: CompiledStatement, target: WriteTarget | null, deleting = false): Promise<Record<string, unknown>[]> {
    try {
      return await this.tx.query(statement.sql, statement.params);
    } catch (error) {
      const failed = this.dialect.translateError(error);
      if (!failed || !target) throw error;
      if (failed.kind === 'foreign_key' && !failed.column) {
        if (deleting) Object.assign(failed, { column: target.collection.keyFields[0] ?? null, referenced: true });
        else failed.column = await this.missingReference(target);
      }
      if (failed.kind === 'unique' && failed.value === null && failed.column) failed.value = await this.duplicateValue(target, failed.column);
      throw translateFailure(failed, target, this.ctx.schema);
    }
  }

  /** For drivers that do not quote it (SQLite): the written value of a unique field that a row already holds. */
  private async duplicateValue(target: WriteTarget, name: string): Promise<string | null> {
    const field = target.collection.fields[name];
    const values = target.rows.map((row) => row[name]).filter((v): v is Key => typeof v === 'string' || typeof v === 'number');
    if (!field || values.length === 0) return null;
    const repeated = values.find((value, i) => values.indexOf(value) !== i);
    if (repeated !== undefined) return String(repeated);
    try {
      for (const statement of compileKeyLookups(target.collection.schema!.name, field, [...new Set(values)], this.hooks)) {
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
        const related = relatedName ? this.ctx.schema.collections[relatedName] : undefined;
        const relatedFieldName = link?.kind === 'm2o' ? link.relatedField : field?.schema?.foreign_key_column;
        const relatedField = related && relatedFieldName ? related.fields[relatedFieldName] : undefined;
        if (!field || !related?.schema || !relatedField) continue;
        const values = [...new Set(target.rows.map((row) => row[name]).filter((v): v is Key => typeof v === 'string' || typeof v === 'number'))];
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
