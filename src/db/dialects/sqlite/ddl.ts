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
import {
  ForeignKeyViolationError,
  type ColumnSpec,
  type DdlCatalog,
  type DdlStatement,
  type SchemaDdl,
  type StorageShape,
} from '../../schema-ddl.js';
import type { DdlStep } from '../../../schema-admin/plan/schema-steps.js';
import { decimalLimit, INTEGER_RANGE, type ConversionCheck } from '../../../schema-admin/plan/type-conversions.js';
import { quoteName, sameName } from './table-definition.js';
import { rebuildTable, rebuiltTables } from './table-rebuild.js';

const q = quoteName;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

const run = statementRunner(async (connection, sql, params) => {
  const statement = (connection as BetterSqlite3.Database).prepare(sql);
  const values = params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  if (statement.reader) return statement.all(...values) as Record<string, any>[];
  statement.run(...values);
  return [];
});

function typeOf(spec: ColumnSpec): string {
  switch (spec.type) {
    case 'string':
      return `varchar(${spec.maxLength ?? 255})`;
    case 'decimal':
      return `decimal(${spec.precision ?? 10}, ${spec.scale ?? 5})`;
    // Only `integer primary key` makes the rowid the key: an auto-increment bigInteger key is an integer here.
    case 'bigInteger':
      return spec.autoIncrement ? 'integer' : 'bigint';
    default:
      return DECLARED[spec.type];
  }
}

const DECLARED: Record<ColumnSpec['type'], string> = {
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

function defaultSql(spec: ColumnSpec): string | null {
  const value = spec.default;
  if (value.kind === 'none') return null;
  if (value.kind === 'now') return 'CURRENT_TIMESTAMP';
  if (typeof value.value === 'boolean') return value.value ? '1' : '0';
  if (typeof value.value === 'number') return String(value.value);
  return literal(value.value);
}

function columnDefinition(spec: ColumnSpec, inlineKey: boolean): string {
  const parts = [q(spec.name), typeOf(spec)];
  if (!spec.nullable || spec.primaryKey) parts.push('not null');
  if (inlineKey) parts.push(spec.autoIncrement ? 'primary key autoincrement' : 'primary key');
  const dflt = defaultSql(spec);
  if (dflt !== null) parts.push(`default ${dflt}`);
  return parts.join(' ');
}

function* createIndexes(table: string, spec: ColumnSpec): Generator<DdlStatement> {
  if (spec.primaryKey) return;
  if (spec.unique)
    yield {
      sql: `create unique index ${q(constraintName(table, spec.name, 'unique'))} on ${q(table)} (${q(spec.name)})`,
    };
  else if (spec.indexed)
    yield { sql: `create index ${q(constraintName(table, spec.name, 'index'))} on ${q(table)} (${q(spec.name)})` };
}

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
  const range =
    target.type === 'integer' || target.type === 'bigInteger' ? INTEGER_RANGE[target.type] : INTEGER_RANGE.bigInteger;
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

function addForeignKey(catalog: DdlCatalog, key: ForeignKeyInfo): AsyncGenerator<DdlStatement> {
  return rebuildTable(catalog, key.table, {
    edit(table) {
      table.removeForeignKeys(key.column);
      table.addReference(key.column, key.foreign_key_table, key.foreign_key_column, key.on_delete, key.on_update);
    },
  });
}

function dropForeignKey(catalog: DdlCatalog, key: ForeignKeyInfo): AsyncGenerator<DdlStatement> {
  return rebuildTable(catalog, key.table, {
    edit: (table) =>
      table.removeForeignKeys(key.column, { table: key.foreign_key_table, column: key.foreign_key_column }),
  });
}

async function* addColumn(catalog: DdlCatalog, table: string, column: ColumnSpec): AsyncGenerator<DdlStatement> {
  // ADD COLUMN takes neither a NOT NULL column without default nor a clock default; a rebuild takes both.
  if ((!column.nullable && column.default.kind === 'none') || column.default.kind === 'now') {
    const dflt = defaultSql(column);
    const clauses = [...(column.nullable ? [] : ['not null']), ...(dflt === null ? [] : [`default ${dflt}`])];
    yield* rebuildTable(catalog, table, {
      edit: (definition) => definition.addColumn(column.name, typeOf(column), clauses),
    });
  } else {
    yield { sql: `alter table ${q(table)} add column ${columnDefinition(column, false)}` };
  }
  yield* createIndexes(table, column);
}

async function* alterColumn(
  step: Extract<DdlStep, { kind: 'alterColumn' }>,
  catalog: DdlCatalog,
): AsyncGenerator<DdlStatement> {
  const { table, current, target, changes, conversion } = step;
  const uniqueIndexes =
    changes.unique && !target.unique ? await singleColumnIndexes(catalog, table, current.name, true) : [];
  const inlineUnique = uniqueIndexes.some((i) => i.origin === 'u');
  if (changes.type || changes.nullable || changes.default || inlineUnique) {
    yield* rebuildTable(catalog, table, {
      edit(definition) {
        if (changes.type) definition.setType(current.name, typeOf(target));
        if (changes.nullable) definition.setNotNull(current.name, !target.nullable);
        if (changes.type || changes.default) definition.setDefault(current.name, defaultSql(target));
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

export const sqliteDdl: SchemaDdl = {
  transactional: true,
  comments: false,
  nativeUuid: true,

  run,

  async transaction(knex, work) {
    const client = knex.client as {
      acquireConnection(): Promise<BetterSqlite3.Database>;
      releaseConnection(c: unknown): Promise<unknown>;
    };
    const connection = await client.acquireConnection();
    try {
      connection.pragma('foreign_keys = OFF');
      return await knex.transaction(
        async (trx) => {
          const rebuilt = new Set<string>();
          rebuiltTables.set(trx, rebuilt);
          const result = await work(trx);
          for (const table of rebuilt) {
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
  },

  shape(spec): StorageShape {
    const shape: StorageShape = {
      data_type: spec.type === 'bigInteger' && spec.autoIncrement ? 'integer' : DECLARED[spec.type],
    };
    if (spec.type === 'string') shape.max_length = spec.maxLength ?? 255;
    if (spec.type === 'decimal') {
      shape.numeric_precision = spec.precision ?? 10;
      shape.numeric_scale = spec.scale ?? 5;
    }
    return shape;
  },

  async *statements(step, catalog) {
    switch (step.kind) {
      case 'createTable': {
        const keys = step.columns.filter((c) => c.primaryKey);
        const inline = keys.length === 1;
        const definitions = step.columns.map((c) => columnDefinition(c, inline && c.primaryKey));
        if (keys.length > 1) definitions.push(`primary key (${keys.map((c) => q(c.name)).join(', ')})`);
        yield { sql: `create table ${q(step.table)} (${definitions.join(', ')})` };
        for (const column of step.columns) yield* createIndexes(step.table, column);
        return;
      }
      case 'addColumn':
        yield* addColumn(catalog, step.table, step.column);
        return;
      case 'alterColumn':
        yield* alterColumn(step, catalog);
        return;
      case 'dropColumn': {
        const { table, column } = step;
        // Other tables' keys that reference the column are dropped first: they would point at nothing.
        for (const key of step.keys) if (key.table !== table) yield* dropForeignKey(catalog, key);
        yield* rebuildTable(catalog, table, { edit: (definition) => definition.dropColumn(column) });
        return;
      }
      case 'dropTable':
        for (const key of step.keys) if (key.table !== step.table) yield* dropForeignKey(catalog, key);
        yield { sql: `drop table ${q(step.table)}` };
        return;
      case 'addForeignKey':
        yield* addForeignKey(catalog, step.key);
        return;
      case 'dropForeignKey':
        yield* dropForeignKey(catalog, step.key);
        return;
    }
  },

  refuses: () => false,

  lossyCount(table, column, check, target) {
    const c = q(column);
    return {
      sql: `select count(*) as n from ${q(table)} where ${c} is not null and (${lossyPredicate(c, check, target)})`,
    };
  },
};
