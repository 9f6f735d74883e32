/**
 * The DDL every dialect shares, as one renderer that each src/db/dialects/<vendor>/ddl.ts extends and overrides only
 * where its database differs (the habit of Kysely's DefaultQueryCompiler): column definitions and defaults, the
 * dispatch of each step, indexes, foreign keys, conversion counts and storage shapes. Vendor-neutral: the defaults
 * here are plain SQL, and a dialect's override says what its database wants instead.
 */
import type { Knex } from 'knex';
import type { ForeignKeyInfo } from '../schema/types.js';
import { constraintName } from './ddl-names.js';
import type { DdlCatalog, DdlStatement, SchemaDdl, StorageShape } from './schema-ddl.js';
import type { ColumnSpec, StorageType } from '../schema-admin/plan/column-spec.js';
import type { DdlStep } from '../schema-admin/plan/schema-steps.js';
import type { ConversionCheck } from '../schema-admin/plan/type-conversions.js';

export type StepOf<K extends DdlStep['kind']> = Extract<DdlStep, { kind: K }>;

/** Inclusive range of the integer storage types (a database whose integers are all 64-bit checks the same limits). */
const INTEGER_RANGE: Record<'integer' | 'bigInteger', [string, string]> = {
  integer: ['-2147483648', '2147483647'],
  bigInteger: ['-9223372036854775808', '9223372036854775807'],
};

/** `10^(precision - scale)`: the first value a decimal(precision, scale) cannot hold, as a literal. */
export function decimalLimit(spec: ColumnSpec): string {
  const digits = (spec.precision ?? 10) - (spec.scale ?? 0);
  return `1${'0'.repeat(Math.max(digits, 0))}`;
}

/** The range a value converted to `target` must fall in (non-integer targets: the widest integer). */
export function integerRange(target: ColumnSpec): [string, string] {
  return target.type === 'integer' || target.type === 'bigInteger'
    ? INTEGER_RANGE[target.type]
    : INTEGER_RANGE.bigInteger;
}

export abstract class DdlRenderer implements SchemaDdl {
  abstract readonly transactional: boolean;
  abstract readonly comments: boolean;
  abstract readonly nativeUuid: boolean;
  abstract readonly autoIncrementBesideKey: boolean;
  abstract run(knex: Knex, sql: string, params?: unknown[]): Promise<Record<string, any>[]>;

  /** The declared type of each storage type, where the type takes no length or precision. */
  protected abstract readonly types: Record<StorageType, string>;
  /** The data_type introspection reports for each storage type. */
  protected abstract readonly shapes: Record<StorageType, string>;

  // --- the parts of a column definition ---

  quote(name: string): string {
    return `"${name.replace(/"/g, '""')}"`;
  }

  literal(text: string): string {
    return `'${text.replace(/'/g, "''")}'`;
  }

  typeOf(spec: ColumnSpec): string {
    switch (spec.type) {
      case 'string':
        return `varchar(${spec.maxLength ?? 255})`;
      case 'decimal':
        return `decimal(${spec.precision ?? 10}, ${spec.scale ?? 5})`;
      default:
        return this.types[spec.type];
    }
  }

  protected booleanLiteral(value: boolean): string {
    return value ? 'true' : 'false';
  }

  /** The clock default of a column of `columnType`. */
  protected clockDefault(_columnType: string): string {
    return 'CURRENT_TIMESTAMP';
  }

  /** The default that gives each new row the current date. */
  protected todayDefault(): string {
    return 'CURRENT_DATE';
  }

  /** The default that gives each new row a new uuid. */
  protected randomUuidDefault(): string {
    return 'gen_random_uuid()';
  }

  /** A text default of the column (json defaults are their JSON text). */
  protected textDefault(_spec: ColumnSpec, text: string): string {
    return this.literal(text);
  }

  /** The default as SQL, or null for none; `columnType` is the column's declared type (the clock may follow it). */
  defaultSql(spec: ColumnSpec, columnType = this.typeOf(spec)): string | null {
    const value = spec.default;
    if (value.kind === 'none') return null;
    if (value.kind === 'now') return this.clockDefault(columnType);
    if (value.kind === 'today') return this.todayDefault();
    if (value.kind === 'randomUuid') return this.randomUuidDefault();
    if (typeof value.value === 'boolean') return this.booleanLiteral(value.value);
    if (typeof value.value === 'number') return String(value.value);
    return this.textDefault(spec, value.value);
  }

  protected nullClause(spec: ColumnSpec): string[] {
    return !spec.nullable || spec.primaryKey ? ['not null'] : [];
  }

  /** Key words inside the definition; `inlineKey`: the column is the table's whole primary key. */
  protected keyClause(_spec: ColumnSpec, _inlineKey: boolean): string[] {
    return [];
  }

  /** The default a definition declares (an auto-increment column takes none). */
  protected definedDefault(spec: ColumnSpec): string | null {
    return spec.autoIncrement ? null : this.defaultSql(spec);
  }

  protected commentClause(_spec: ColumnSpec): string[] {
    return [];
  }

  columnDefinition(spec: ColumnSpec, inlineKey = false): string {
    const dflt = this.definedDefault(spec);
    return [
      this.quote(spec.name),
      this.typeOf(spec),
      ...this.nullClause(spec),
      ...this.keyClause(spec, inlineKey),
      ...(dflt === null ? [] : [`default ${dflt}`]),
      ...this.commentClause(spec),
    ].join(' ');
  }

  /** The column definitions of a new table, with a primary key clause for a key of its own. */
  protected tableDefinitions(columns: ColumnSpec[]): string[] {
    const keys = columns.filter((c) => c.primaryKey).map((c) => this.quote(c.name));
    const definitions = columns.map((c) => this.columnDefinition(c));
    if (keys.length) definitions.push(`primary key (${keys.join(', ')})`);
    return definitions;
  }

  /** The index a column's unique or indexed flag asks for, after the column exists. */
  protected *createIndexes(table: string, spec: ColumnSpec): Generator<DdlStatement> {
    if (spec.primaryKey) return;
    const q = (name: string) => this.quote(name);
    if (spec.unique)
      yield {
        sql: `create unique index ${q(constraintName(table, spec.name, 'unique'))} on ${q(table)} (${q(spec.name)})`,
      };
    else if (spec.indexed)
      yield { sql: `create index ${q(constraintName(table, spec.name, 'index'))} on ${q(table)} (${q(spec.name)})` };
  }

  protected addForeignKeySql(key: ForeignKeyInfo): string {
    const q = (name: string) => this.quote(name);
    const name = key.constraint_name ?? constraintName(key.table, key.column, 'foreign');
    const actions = `${key.on_delete ? ` on delete ${key.on_delete}` : ''}${key.on_update ? ` on update ${key.on_update}` : ''}`;
    return `alter table ${q(key.table)} add constraint ${q(name)} foreign key (${q(key.column)}) references ${q(key.foreign_key_table)} (${q(key.foreign_key_column)})${actions}`;
  }

  // --- the steps ---

  transaction<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return knex.transaction(work);
  }

  statements(step: DdlStep, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    switch (step.kind) {
      case 'createTable':
        return this.createTable(step, catalog);
      case 'addColumn':
        return this.addColumn(step, catalog);
      case 'alterColumn':
        return this.alterColumn(step, catalog);
      case 'dropColumn':
        return this.dropColumn(step, catalog);
      case 'dropTable':
        return this.dropTable(step, catalog);
      case 'addForeignKey':
        return this.addForeignKey(step, catalog);
      case 'dropForeignKey':
        return this.dropForeignKey(step, catalog);
    }
  }

  protected async *createTable(step: StepOf<'createTable'>, _catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    yield { sql: `create table ${this.quote(step.table)} (${this.tableDefinitions(step.columns).join(', ')})` };
    for (const column of step.columns) yield* this.createIndexes(step.table, column);
  }

  protected async *addColumn(step: StepOf<'addColumn'>, _catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    yield { sql: `alter table ${this.quote(step.table)} add column ${this.columnDefinition(step.column)}` };
    yield* this.createIndexes(step.table, step.column);
  }

  protected abstract alterColumn(step: StepOf<'alterColumn'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement>;
  protected abstract dropColumn(step: StepOf<'dropColumn'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement>;

  /** Drops a foreign key of another table that points at a table or column about to go. */
  protected abstract dropReferencingKey(
    key: ForeignKeyInfo,
    catalog: DdlCatalog,
  ): Iterable<DdlStatement> | AsyncIterable<DdlStatement>;

  protected async *dropTable(step: StepOf<'dropTable'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    for (const key of step.keys) if (key.table !== step.table) yield* this.dropReferencingKey(key, catalog);
    yield { sql: `drop table ${this.quote(step.table)}` };
  }

  protected async *addForeignKey(step: StepOf<'addForeignKey'>, _catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    yield { sql: this.addForeignKeySql(step.key) };
  }

  protected async *dropForeignKey(step: StepOf<'dropForeignKey'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    yield* this.dropReferencingKey(step.key, catalog);
  }

  // --- checks and shapes ---

  refuses(_error: unknown): boolean {
    return false;
  }

  /** SQL that is true for a value (of the quoted column `c`) the conversion would not keep; `params` takes bindings. */
  protected abstract lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec, params: unknown[]): string;

  lossyCount(table: string, column: string, check: ConversionCheck, target: ColumnSpec): DdlStatement {
    const c = this.quote(column);
    const params: unknown[] = [];
    const predicate = this.lossyPredicate(c, check, target, params);
    const sql = `select count(*) as n from ${this.quote(table)} where ${c} is not null and (${predicate})`;
    return params.length ? { sql, params } : { sql };
  }

  /** The data_type introspection reports for a column made from `spec`. */
  protected dataType(spec: ColumnSpec): string {
    return this.shapes[spec.type];
  }

  shape(spec: ColumnSpec): StorageShape {
    const shape: StorageShape = { data_type: this.dataType(spec) };
    if (spec.type === 'string') shape.max_length = spec.maxLength ?? 255;
    if (spec.type === 'decimal') {
      shape.numeric_precision = spec.precision ?? 10;
      shape.numeric_scale = spec.scale ?? 5;
    }
    return shape;
  }
}
