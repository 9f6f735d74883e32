/**
 * SQLite DDL for schema changes. DDL is transactional; a schema change runs with foreign keys off (they cannot be
 * switched inside a transaction, so the connection is taken from the pool first) because changing a column means
 * rebuilding its table (table-rebuild.ts), and the tables rebuilt are checked for broken keys before commit.
 * SQLite keeps no column comments: `comment` is accepted and not stored.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { ForeignKeyInfo } from '../../../schema/types.js';
import { statementRunner } from '../../ddl-exec.js';
import { constraintName } from '../../ddl-names.js';
import { decimalLimit, DdlRenderer, integerRange, type StepOf } from '../../ddl-renderer.js';
import { ForeignKeyViolationError, type DdlCatalog, type DdlStatement, type SchemaDdl } from '../../schema-ddl.js';
import type { ColumnSpec, StorageType } from '../../../schema-admin/plan/column-spec.js';
import type { ConversionCheck } from '../../../schema-admin/plan/type-conversions.js';
import { quoteName, sameName } from './table-definition.js';
import { rebuildTable, rebuiltTables } from './table-rebuild.js';
import { RANDOM_UUID_SQL } from './uuid-default.js';

const q = quoteName;

const run = statementRunner(async (connection, sql, params) => {
  const statement = (connection as BetterSqlite3.Database).prepare(sql);
  const values = params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  if (statement.reader) return statement.all(...values) as Record<string, any>[];
  statement.run(...values);
  return [];
});

/** Named single-column indexes on the column; `autoindex` ones come from UNIQUE in the table definition. */
async function singleColumnIndexes(
  catalog: DdlCatalog,
  table: string,
  column: string,
  unique: boolean,
): Promise<{ name: string; origin: string }[]> {
  const result: { name: string; origin: string }[] = [];
  for (const index of await catalog.query(`pragma index_list(${q(table)})`)) {
    if (Boolean(index.unique) !== unique || index.origin === 'pk' || index.partial === 1) continue;
    const parts = await catalog.query(`pragma index_info(${q(String(index.name))})`);
    if (parts.length === 1 && parts[0]!.name !== null && sameName(String(parts[0]!.name), column))
      result.push({ name: String(index.name), origin: String(index.origin) });
  }
  return result.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** SELECT expression that converts the old value while copying (type affinity converts the rest). */
function copyExpression(c: string, conversion: ConversionCheck | null): string {
  switch (conversion) {
    case 'integer-text':
    case 'integral':
      return `cast(trim(${c}) as integer)`;
    case 'decimal-text':
    case 'float-text':
      return `cast(trim(${c}) as numeric)`;
    case 'midnight':
      return `case when typeof(${c}) = 'text' then date(${c}) else ${c} end`;
    case 'date-text':
    case 'datetime-text':
    case 'time-text':
    case 'uuid-text':
      return `trim(${c})`;
    default:
      return c;
  }
}

const NUMERIC_TEXT = (x: string) =>
  `(${x} <> '' and ${x} not glob '*[^0-9.+-]*' and ${x} glob '*[0-9]*' and substr(${x}, 2) not glob '*[+-]*' and length(${x}) - length(replace(${x}, '.', '')) <= 1)`;

/** SQL that is true for a value (of the quoted column `c`) the conversion would not keep. */
function lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec): string {
  const range = integerRange(target);
  const t = `trim(${c})`;
  switch (check) {
    case 'none':
      return '0';
    case 'length':
      return `length(${c}) > ${target.maxLength ?? 255}`;
    case 'integral':
      return `(typeof(${c}) not in ('integer', 'real') or ${c} <> cast(${c} as integer) or ${c} < ${range[0]} or ${c} > ${range[1]})`;
    case 'integer-text': {
      const digits = `ltrim(ltrim(${t}, '+-'), '0')`;
      const canonical = `(case when substr(${t}, 1, 1) = '-' and ${digits} <> '' then '-' else '' end || case when ${digits} = '' then '0' else ${digits} end)`;
      return `case typeof(${c}) when 'integer' then ${c} not between ${range[0]} and ${range[1]}
        when 'real' then (${c} <> cast(${c} as integer) or ${c} not between ${range[0]} and ${range[1]})
        when 'text' then not (ltrim(${t}, '+-') <> '' and ltrim(${t}, '+-') not glob '*[^0-9]*' and substr(${t}, 2) not glob '*[+-]*'
          and cast(cast(${t} as integer) as text) = ${canonical} and cast(${t} as integer) between ${range[0]} and ${range[1]})
        else 1 end`;
    }
    case 'decimal-fit':
      return `(typeof(${c}) not in ('integer', 'real') or round(${c}, ${target.scale ?? 5}) <> ${c} or abs(${c}) >= ${decimalLimit(target)})`;
    case 'decimal-text':
      return `case when typeof(${c}) in ('integer', 'real') then (round(${c}, ${target.scale ?? 5}) <> ${c} or abs(${c}) >= ${decimalLimit(target)})
        when ${NUMERIC_TEXT(t)} then (round(cast(${t} as real), ${target.scale ?? 5}) <> cast(${t} as real) or abs(cast(${t} as real)) >= ${decimalLimit(target)})
        else 1 end`;
    case 'float-exact':
      return `abs(${c}) > 9007199254740992`;
    case 'float-text':
      return `not (typeof(${c}) in ('integer', 'real') or ${NUMERIC_TEXT(`replace(replace(${t}, 'e', ''), 'E', '')`)})`;
    case 'boolean-int':
      return `${c} not in (0, 1)`;
    case 'uuid-text':
      return `(length(${t}) <> 36 or lower(${t}) glob '*[^0-9a-f-]*' or length(replace(${t}, '-', '')) <> 32
        or substr(${t}, 9, 1) <> '-' or substr(${t}, 14, 1) <> '-' or substr(${t}, 19, 1) <> '-' or substr(${t}, 24, 1) <> '-')`;
    case 'json-text':
      return `not json_valid(${c})`;
    case 'date-text':
      return `(date(${t}) is null or date(${t}) <> ${t})`;
    case 'datetime-text':
      return `datetime(${t}) is null`;
    case 'time-text':
      return `time(${t}) is null`;
    case 'midnight':
      return `case when typeof(${c}) in ('integer', 'real') then time(${c} / 1000.0, 'unixepoch') else time(${c}) end <> '00:00:00'`;
  }
}

function dropForeignKey(catalog: DdlCatalog, key: ForeignKeyInfo): AsyncGenerator<DdlStatement> {
  return rebuildTable(catalog, key.table, {
    edit: (table) =>
      table.removeForeignKeys(key.column, { table: key.foreign_key_table, column: key.foreign_key_column }),
  });
}

class SqliteDdl extends DdlRenderer {
  readonly transactional = true;
  readonly comments = false;
  readonly autoIncrementBesideKey = false;
  readonly nativeUuid = true;
  readonly run = run;

  protected readonly types: Record<StorageType, string> = {
    string: 'varchar',
    text: 'text',
    integer: 'integer',
    bigInteger: 'bigint',
    boolean: 'boolean',
    decimal: 'decimal',
    float: 'float',
    json: 'json',
    date: 'date',
    dateTime: 'datetime',
    timestamp: 'timestamp',
    time: 'time',
    uuid: 'uuid',
    binary: 'blob',
  };

  protected readonly shapes = this.types;

  /** Only `integer primary key` makes the rowid the key: an auto-increment bigInteger key is an integer here. */
  override typeOf(spec: ColumnSpec): string {
    return spec.type === 'bigInteger' && spec.autoIncrement ? 'integer' : super.typeOf(spec);
  }

  protected override dataType(spec: ColumnSpec): string {
    return spec.type === 'bigInteger' && spec.autoIncrement ? 'integer' : this.types[spec.type];
  }

  protected override booleanLiteral(value: boolean): string {
    return value ? '1' : '0';
  }

  protected override keyClause(spec: ColumnSpec, inlineKey: boolean): string[] {
    if (!inlineKey) return [];
    return [spec.autoIncrement ? 'primary key autoincrement' : 'primary key'];
  }

  protected override definedDefault(spec: ColumnSpec): string | null {
    return this.defaultSql(spec);
  }

  /** A key of one column is declared with it (autoincrement needs that); a wider key is a clause of its own. */
  protected override tableDefinitions(columns: ColumnSpec[]): string[] {
    const keys = columns.filter((c) => c.primaryKey);
    const inline = keys.length === 1;
    const definitions = columns.map((c) => this.columnDefinition(c, inline && c.primaryKey));
    if (keys.length > 1) definitions.push(`primary key (${keys.map((c) => q(c.name)).join(', ')})`);
    return definitions;
  }

  override async transaction<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const client = knex.client;
    const connection = (await client.acquireConnection()) as BetterSqlite3.Database;
    try {
      connection.pragma('foreign_keys = OFF');
      return await knex.transaction(
        async (trx) => {
          const rebuilt = new Set<string>();
          rebuiltTables.set(trx, rebuilt);
          const result = await work(trx);
          for (const table of rebuilt) {
            // A table rebuilt by one change of a batch and dropped by a later one has nothing left to check.
            if (!(await run(trx, `select 1 from sqlite_master where type = 'table' and name = ?`, [table])).length)
              continue;
            const broken = await run(trx, `pragma foreign_key_check(${q(table)})`);
            if (broken.length) throw new ForeignKeyViolationError(table, broken.length);
          }
          return result;
        },
        { connection } as Knex.TransactionConfig,
      );
    } finally {
      connection.pragma('legacy_alter_table = OFF');
      connection.pragma('foreign_keys = ON');
      await client.releaseConnection(connection);
    }
  }

  protected override randomUuidDefault(): string {
    return `(${RANDOM_UUID_SQL})`;
  }

  /** ADD COLUMN takes neither a NOT NULL column without default nor a function default; a rebuild takes both. */
  protected override async *addColumn(step: StepOf<'addColumn'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    const { table, column } = step;
    const kind = column.default.kind;
    if ((!column.nullable && kind === 'none') || (kind !== 'none' && kind !== 'value')) {
      const dflt = this.defaultSql(column);
      const clauses = [...(column.nullable ? [] : ['not null']), ...(dflt === null ? [] : [`default ${dflt}`])];
      yield* rebuildTable(catalog, table, {
        edit: (definition) => definition.addColumn(column.name, this.typeOf(column), clauses),
      });
    } else {
      yield { sql: `alter table ${q(table)} add column ${this.columnDefinition(column, false)}` };
    }
    yield* this.createIndexes(table, column);
  }

  protected async *alterColumn(step: StepOf<'alterColumn'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    const { table, current, target, changes, conversion } = step;
    const uniqueIndexes =
      changes.unique && !target.unique ? await singleColumnIndexes(catalog, table, current.name, true) : [];
    const inlineUnique = uniqueIndexes.some((i) => i.origin === 'u');
    if (changes.type || changes.nullable || changes.default || inlineUnique) {
      yield* rebuildTable(catalog, table, {
        edit: (definition) => {
          if (changes.type) definition.setType(current.name, this.typeOf(target));
          if (changes.nullable) definition.setNotNull(current.name, !target.nullable);
          if (changes.type || changes.default) definition.setDefault(current.name, this.defaultSql(target));
          if (inlineUnique) definition.removeUnique(current.name);
        },
        copy: changes.type ? { [current.name]: copyExpression(q(current.name), conversion) } : undefined,
      });
    }
    if (changes.unique) {
      if (target.unique)
        yield {
          sql: `create unique index ${q(constraintName(table, current.name, 'unique'))} on ${q(table)} (${q(current.name)})`,
        };
      else for (const index of uniqueIndexes) if (index.origin === 'c') yield { sql: `drop index ${q(index.name)}` };
    }
    if (changes.indexed) {
      if (target.indexed)
        yield {
          sql: `create index ${q(constraintName(table, current.name, 'index'))} on ${q(table)} (${q(current.name)})`,
        };
      else
        for (const index of await singleColumnIndexes(catalog, table, current.name, false))
          yield { sql: `drop index ${q(index.name)}` };
    }
  }

  protected async *dropColumn(step: StepOf<'dropColumn'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    const { table, column } = step;
    // Other tables' keys that reference the column are dropped first: they would point at nothing.
    for (const key of step.keys) if (key.table !== table) yield* dropForeignKey(catalog, key);
    yield* rebuildTable(catalog, table, { edit: (definition) => definition.dropColumn(column) });
  }

  protected dropReferencingKey(key: ForeignKeyInfo, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    return dropForeignKey(catalog, key);
  }

  protected override addForeignKey(step: StepOf<'addForeignKey'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    const { key } = step;
    return rebuildTable(catalog, key.table, {
      edit(table) {
        table.removeForeignKeys(key.column);
        table.addReference(key.column, key.foreign_key_table, key.foreign_key_column, key.on_delete, key.on_update);
      },
    });
  }

  protected override dropForeignKey(step: StepOf<'dropForeignKey'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    return dropForeignKey(catalog, step.key);
  }

  protected lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec): string {
    return lossyPredicate(c, check, target);
  }
}

export const sqliteDdl: SchemaDdl = new SqliteDdl();
