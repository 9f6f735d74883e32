/**
 * SQLite DDL for schema changes. DDL is transactional; a schema change runs with foreign keys off (they cannot be
 * switched inside a transaction, so the connection is taken from the pool first) because changing a column means
 * rebuilding its table (table-rebuild.ts), and the tables rebuilt are checked for broken keys before commit.
 * SQLite keeps no column comments: `comment` is accepted and not stored.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { ColumnInfo, ForeignKeyInfo } from '../../../schema/types.js';
import { statementRunner } from '../../ddl-exec.js';
import { constraintName } from '../../ddl-names.js';
import { ForeignKeyViolationError, type ColumnChanges, type ColumnSpec, type SchemaDdl, type StorageShape } from '../../schema-ddl.js';
import { decimalLimit, INTEGER_RANGE, type ConversionCheck } from '../../type-conversions.js';
import { sameName, wrapName, type ColumnAst, type TableAst } from './create-table-ast.js';
import { rebuildTable, rebuiltTables } from './table-rebuild.js';

const q = wrapName;
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

async function createIndexes(knex: Knex, table: string, spec: ColumnSpec): Promise<void> {
  if (spec.primaryKey) return;
  if (spec.unique) await run(knex, `create unique index ${q(constraintName(table, spec.name, 'unique'))} on ${q(table)} (${q(spec.name)})`);
  else if (spec.indexed) await run(knex, `create index ${q(constraintName(table, spec.name, 'index'))} on ${q(table)} (${q(spec.name)})`);
}

/** Named single-column indexes on the column; `autoindex` ones come from UNIQUE in the table definition. */
async function singleColumnIndexes(knex: Knex, table: string, column: string, unique: boolean): Promise<{ name: string; origin: string }[]> {
  const result: { name: string; origin: string }[] = [];
  for (const index of await run(knex, `pragma index_list(${q(table)})`)) {
    if (Boolean(index.unique) !== unique || index.origin === 'pk' || index.partial === 1) continue;
    const parts = await run(knex, `pragma index_info(${q(String(index.name))})`);
    if (parts.length === 1 && parts[0]!.name !== null && sameName(String(parts[0]!.name), column)) result.push({ name: String(index.name), origin: String(index.origin) });
  }
  return result;
}

function findColumn(ast: TableAst, name: string): ColumnAst {
  const column = ast.columns.find((c) => sameName(c.name, name));
  if (!column) throw new Error(`Column ${name} not found in ${ast.table}`);
  return column;
}

/** Drops UNIQUE from the table definition for this column (the column's own, or a one-column table constraint). */
function removeUnique(ast: TableAst, name: string): void {
  findColumn(ast, name).constraints.unique = null;
  ast.constraints = ast.constraints.filter((c) => !(c.type === 'UNIQUE' && c.columns.length === 1 && sameName(c.columns[0]!.name, name)));
}

function removeForeignKeys(ast: TableAst, column: string, referencing?: { table: string; column: string }): void {
  const matches = (table: string, columns: string[]) => !referencing || (sameName(table, referencing.table) && (columns.length === 0 || columns.some((c) => sameName(c, referencing.column))));
  const own = findColumn(ast, column);
  if (own.constraints.references && matches(own.constraints.references.table, own.constraints.references.columns)) own.constraints.references = null;
  ast.constraints = ast.constraints.filter(
    (c) => !(c.type === 'FOREIGN KEY' && c.columns.some((name) => sameName(name, column)) && matches(c.references.table, c.references.columns)),
  );
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
  const range = target.type === 'integer' || target.type === 'bigInteger' ? INTEGER_RANGE[target.type] : INTEGER_RANGE.bigInteger;
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

async function addForeignKey(knex: Knex, key: ForeignKeyInfo): Promise<null> {
  await rebuildTable(run, knex, key.table, {
    edit(ast) {
      removeForeignKeys(ast, key.column);
      findColumn(ast, key.column).constraints.references = {
        name: null,
        table: key.foreign_key_table,
        columns: [key.foreign_key_column],
        delete: key.on_delete,
        update: key.on_update,
        match: null,
        deferrable: null,
      };
    },
  });
  return null;
}

async function dropForeignKey(knex: Knex, key: ForeignKeyInfo): Promise<null> {
  await rebuildTable(run, knex, key.table, {
    edit: (ast) => removeForeignKeys(ast, key.column, { table: key.foreign_key_table, column: key.foreign_key_column }),
  });
  return null;
}

export const sqliteDdl: SchemaDdl = {
  transactional: true,
  comments: false,
  nativeUuid: true,

  async transaction(knex, work) {
    const client = knex.client as { acquireConnection(): Promise<BetterSqlite3.Database>; releaseConnection(c: unknown): Promise<unknown> };
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
      connection.pragma('foreign_keys = ON');
      await client.releaseConnection(connection);
    }
  },

  shape(spec): StorageShape {
    const shape: StorageShape = { data_type: spec.type === 'bigInteger' && spec.autoIncrement ? 'integer' : DECLARED[spec.type] };
    if (spec.type === 'string') shape.max_length = spec.maxLength ?? 255;
    if (spec.type === 'decimal') {
      shape.numeric_precision = spec.precision ?? 10;
      shape.numeric_scale = spec.scale ?? 5;
    }
    return shape;
  },

  async createTable(knex, table, columns) {
    const keys = columns.filter((c) => c.primaryKey);
    const inline = keys.length === 1;
    const definitions = columns.map((c) => columnDefinition(c, inline && c.primaryKey));
    if (keys.length > 1) definitions.push(`primary key (${keys.map((c) => q(c.name)).join(', ')})`);
    await run(knex, `create table ${q(table)} (${definitions.join(', ')})`);
    for (const column of columns) await createIndexes(knex, table, column);
    return null;
  },

  async addColumn(knex, table, column) {
    // ADD COLUMN takes neither a NOT NULL column without default nor a clock default; a rebuild takes both.
    if ((!column.nullable && column.default.kind === 'none') || column.default.kind === 'now') {
      await rebuildTable(run, knex, table, {
        edit(ast) {
          ast.columns.push({ name: column.name, type: typeOf(column), constraints: emptyConstraints(column) });
        },
      });
    } else {
      await run(knex, `alter table ${q(table)} add column ${columnDefinition(column, false)}`);
    }
    await createIndexes(knex, table, column);
    return null;
  },

  async alterColumn(knex, table, current: ColumnInfo, target, changes: ColumnChanges, conversion) {
    const uniqueIndexes = changes.unique && !target.unique ? await singleColumnIndexes(knex, table, current.name, true) : [];
    const inlineUnique = uniqueIndexes.some((i) => i.origin === 'u');
    if (changes.type || changes.nullable || changes.default || inlineUnique) {
      await rebuildTable(run, knex, table, {
        edit(ast) {
          const column = findColumn(ast, current.name);
          if (changes.type) column.type = typeOf(target);
          if (changes.nullable) {
            column.constraints.notnull = target.nullable ? null : { name: null, conflict: null };
            column.constraints.null = null;
          }
          if (changes.type || changes.default) {
            const dflt = defaultSql(target);
            column.constraints.default = dflt === null ? null : { name: null, value: dflt, expression: false };
          }
          if (inlineUnique) removeUnique(ast, current.name);
        },
        copy: changes.type ? { [current.name]: copyExpression(q(current.name), conversion) } : undefined,
      });
    }
    if (changes.unique) {
      if (target.unique) await run(knex, `create unique index ${q(constraintName(table, current.name, 'unique'))} on ${q(table)} (${q(current.name)})`);
      else for (const index of uniqueIndexes) if (index.origin === 'c') await run(knex, `drop index ${q(index.name)}`);
    }
    if (changes.indexed) {
      if (target.indexed) await run(knex, `create index ${q(constraintName(table, current.name, 'index'))} on ${q(table)} (${q(current.name)})`);
      else for (const index of await singleColumnIndexes(knex, table, current.name, false)) await run(knex, `drop index ${q(index.name)}`);
    }
    return null;
  },

  async dropColumn(knex, table, column, keys) {
    // Other tables' keys that reference the column are dropped first: they would point at nothing.
    for (const key of keys) if (key.table !== table) await dropForeignKey(knex, key);
    await rebuildTable(run, knex, table, {
      edit(ast) {
        ast.columns = ast.columns.filter((c) => !sameName(c.name, column));
        ast.constraints = ast.constraints.filter((c) => {
          if (c.type === 'FOREIGN KEY') return !c.columns.some((name) => sameName(name, column)) && !(sameName(c.references.table, table) && c.references.columns.some((name) => sameName(name, column)));
          if (c.type === 'UNIQUE' || c.type === 'PRIMARY KEY') return !c.columns.some((part) => !part.expression && sameName(part.name, column));
          return true;
        });
        for (const other of ast.columns) {
          const ref = other.constraints.references;
          if (ref && sameName(ref.table, table) && ref.columns.some((name) => sameName(name, column))) other.constraints.references = null;
        }
      },
    });
  },

  async dropTable(knex, table, keys) {
    for (const key of keys) if (key.table !== table) await dropForeignKey(knex, key);
    await run(knex, `drop table ${q(table)}`);
  },

  addForeignKey,
  dropForeignKey,

  async countLossy(knex, table, column, check, target) {
    const c = q(column);
    const [row] = await run(knex, `select count(*) as n from ${q(table)} where ${c} is not null and (${lossyPredicate(c, check, target)})`);
    return Number(row?.n ?? 0);
  },
};

function emptyConstraints(spec: ColumnSpec): ColumnAst['constraints'] {
  const dflt = defaultSql(spec);
  return {
    primary: null,
    notnull: spec.nullable ? null : { name: null, conflict: null },
    null: null,
    unique: null,
    check: null,
    default: dflt === null ? null : { name: null, value: dflt, expression: false },
    collate: null,
    references: null,
    as: null,
  };
}
