/**
 * PostgreSQL DDL for schema changes: each step rendered as statements. DDL is transactional here: a change runs in
 * one transaction with its metadata, so a failure anywhere leaves nothing behind (no undo statements needed).
 */
import type pg from 'pg';
import type { ForeignKeyInfo } from '../../../schema/types.js';
import { statementRunner } from '../../ddl-exec.js';
import { constraintName } from '../../ddl-names.js';
import {
  SchemaRefusedError,
  type ColumnSpec,
  type DdlCatalog,
  type DdlStatement,
  type SchemaDdl,
  type StorageShape,
} from '../../schema-ddl.js';
import type { DdlStep } from '../../../schema-admin/plan/schema-steps.js';
import { decimalLimit, INTEGER_RANGE, type ConversionCheck } from '../../../schema-admin/plan/type-conversions.js';

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

const run = statementRunner(
  async (connection, sql, params) => (await (connection as pg.Client).query({ text: sql, values: params })).rows,
);

function typeOf(spec: ColumnSpec): string {
  switch (spec.type) {
    case 'string':
      return `varchar(${spec.maxLength ?? 255})`;
    case 'text':
      return 'text';
    case 'integer':
      return spec.autoIncrement ? 'serial' : 'integer';
    case 'bigInteger':
      return spec.autoIncrement ? 'bigserial' : 'bigint';
    case 'boolean':
      return 'boolean';
    case 'decimal':
      return `numeric(${spec.precision ?? 10}, ${spec.scale ?? 5})`;
    case 'float':
      return 'double precision';
    case 'json':
      return 'json';
    case 'date':
      return 'date';
    case 'dateTime':
      return 'timestamp';
    case 'timestamp':
      return 'timestamptz';
    case 'time':
      return 'time';
    case 'uuid':
      return 'uuid';
    case 'binary':
      return 'bytea';
  }
}

/** The type without serial sugar (ALTER COLUMN TYPE takes no serial). */
function plainTypeOf(spec: ColumnSpec): string {
  return typeOf({ ...spec, autoIncrement: false });
}

const SHAPES: Record<ColumnSpec['type'], string> = {
  string: 'character varying',
  text: 'text',
  integer: 'integer',
  bigInteger: 'bigint',
  boolean: 'boolean',
  decimal: 'numeric',
  float: 'double precision',
  json: 'json',
  date: 'date',
  dateTime: 'timestamp without time zone',
  timestamp: 'timestamp with time zone',
  time: 'time without time zone',
  uuid: 'uuid',
  binary: 'bytea',
};

function defaultSql(spec: ColumnSpec): string | null {
  const value = spec.default;
  if (value.kind === 'none') return null;
  if (value.kind === 'now') return 'CURRENT_TIMESTAMP';
  if (typeof value.value === 'boolean') return value.value ? 'true' : 'false';
  if (typeof value.value === 'number') return String(value.value);
  return literal(value.value);
}

function columnDefinition(spec: ColumnSpec): string {
  const parts = [q(spec.name), typeOf(spec)];
  if (!spec.nullable || spec.primaryKey) parts.push('not null');
  const dflt = spec.autoIncrement ? null : defaultSql(spec);
  if (dflt !== null) parts.push(`default ${dflt}`);
  return parts.join(' ');
}

function* createIndexes(table: string, spec: ColumnSpec): Generator<DdlStatement> {
  if (spec.unique && !spec.primaryKey) {
    yield {
      sql: `create unique index ${q(constraintName(table, spec.name, 'unique'))} on ${q(table)} (${q(spec.name)})`,
    };
  } else if (spec.indexed && !spec.primaryKey) {
    yield { sql: `create index ${q(constraintName(table, spec.name, 'index'))} on ${q(table)} (${q(spec.name)})` };
  }
  if (spec.comment !== null) yield setComment(table, spec.name, spec.comment);
}

function setComment(table: string, column: string, comment: string | null): DdlStatement {
  return { sql: `comment on column ${q(table)}.${q(column)} is ${comment === null ? 'null' : literal(comment)}` };
}

/** Single-column indexes on the column (unique or not), with the constraint that owns each, if any. */
function singleColumnIndexes(catalog: DdlCatalog, table: string, column: string, unique: boolean) {
  return catalog.query(
    `select i.relname as index_name, con.conname as constraint_name
     from pg_index ix
     join pg_class t on t.oid = ix.indrelid
     join pg_class i on i.oid = ix.indexrelid
     join pg_namespace n on n.oid = t.relnamespace
     join pg_attribute a on a.attrelid = t.oid and a.attnum = ix.indkey[0]
     left join pg_constraint con on con.conindid = ix.indexrelid and con.conrelid = t.oid and con.contype = 'u'
     where n.nspname = current_schema() and t.relname = $1 and a.attname = $2 and ix.indnatts = 1
       and ix.indexprs is null and not ix.indisprimary and ix.indisunique = $3
     order by i.relname`,
    [table, column, unique],
  );
}

async function* dropIndexes(
  catalog: DdlCatalog,
  table: string,
  column: string,
  unique: boolean,
): AsyncGenerator<DdlStatement> {
  for (const index of await singleColumnIndexes(catalog, table, column, unique)) {
    if (index.constraint_name) yield { sql: `alter table ${q(table)} drop constraint ${q(index.constraint_name)}` };
    else yield { sql: `drop index ${q(index.index_name)}` };
  }
}

/** Generated columns whose expression reads the column (PostgreSQL refuses to change its type then). */
async function dependentGeneratedColumns(catalog: DdlCatalog, table: string, column: string): Promise<string[]> {
  const rows = await catalog.query(
    `select distinct g.attname as name
     from pg_depend d
     join pg_class t on t.oid = d.refobjid
     join pg_namespace n on n.oid = t.relnamespace
     join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
     join pg_attribute g on g.attrelid = d.objid and g.attnum = d.objsubid
     where d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass and d.objid = t.oid
       and n.nspname = current_schema() and t.relname = $1 and a.attname = $2 and g.attgenerated = 's'`,
    [table, column],
  );
  return rows.map((r) => String(r.name));
}

/** USING expression of a type change: a cast, except where PostgreSQL has none (integer → boolean). */
function usingExpression(column: string, target: ColumnSpec, conversion: ConversionCheck | null): string {
  if (conversion === 'boolean-int') return `(${column} <> 0)`;
  return `${column}::${plainTypeOf(target)}`;
}

const NUMERIC_TEXT = `'^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)\\s*$'`;

/** SQL that is true for a value (of the quoted column `c`) the conversion would not keep. */
function lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec): string {
  const range =
    target.type === 'integer' || target.type === 'bigInteger' ? INTEGER_RANGE[target.type] : INTEGER_RANGE.bigInteger;
  switch (check) {
    case 'none':
      return 'false';
    case 'length':
      return `char_length(${c}::text) > ${target.maxLength ?? 255}`;
    case 'integral':
      return `(${c} <> trunc(${c}) or ${c} < ${range[0]} or ${c} > ${range[1]})`;
    case 'integer-text':
      return `case when ${c} ~ '^\\s*[-+]?[0-9]{1,19}\\s*$' then (trim(${c})::numeric not between ${range[0]} and ${range[1]}) else true end`;
    case 'decimal-fit':
      return `(round(${c}::numeric, ${target.scale ?? 5}) <> ${c}::numeric or abs(${c}::numeric) >= ${decimalLimit(target)})`;
    case 'decimal-text':
      return `case when ${c} ~ ${NUMERIC_TEXT} then (round(trim(${c})::numeric, ${target.scale ?? 5}) <> trim(${c})::numeric or abs(trim(${c})::numeric) >= ${decimalLimit(target)}) else true end`;
    case 'float-exact':
      return `abs(${c}::numeric) > 9007199254740992`;
    case 'float-text':
      return `${c} !~ '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]{1,3})?\\s*$'`;
    case 'boolean-int':
      return `${c} not in (0, 1)`;
    case 'uuid-text':
      return `${c} !~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;
    // PostgreSQL 15 cannot test text for JSON or a calendar date without raising; the ALTER itself fails then,
    // inside the transaction, and the change is refused with nothing applied.
    case 'json-text':
      return 'false';
    case 'date-text':
      return `${c} !~ '^\\s*[0-9]{4}-[0-9]{2}-[0-9]{2}\\s*$'`;
    case 'datetime-text':
      return `${c} !~ '^\\s*[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?)?\\s*$'`;
    case 'time-text':
      return `${c} !~ '^\\s*[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?\\s*$'`;
    case 'midnight':
      return `${c}::time <> '00:00:00'`;
  }
}

function addForeignKey(key: ForeignKeyInfo): DdlStatement {
  const name = key.constraint_name ?? constraintName(key.table, key.column, 'foreign');
  const actions = `${key.on_delete ? ` on delete ${key.on_delete}` : ''}${key.on_update ? ` on update ${key.on_update}` : ''}`;
  return {
    sql: `alter table ${q(key.table)} add constraint ${q(name)} foreign key (${q(key.column)}) references ${q(key.foreign_key_table)} (${q(key.foreign_key_column)})${actions}`,
  };
}

function* dropForeignKey(key: ForeignKeyInfo): Generator<DdlStatement> {
  if (key.constraint_name)
    yield { sql: `alter table ${q(key.table)} drop constraint if exists ${q(key.constraint_name)}` };
}

async function* alterColumn(
  step: Extract<DdlStep, { kind: 'alterColumn' }>,
  catalog: DdlCatalog,
): AsyncGenerator<DdlStatement> {
  const { table, current, target, changes, conversion } = step;
  const t = q(table);
  const c = q(current.name);
  if (changes.type) {
    const generated = await dependentGeneratedColumns(catalog, table, current.name);
    if (generated.length) {
      throw new SchemaRefusedError(
        `PostgreSQL can't change the type of a column that generated column(s) ${generated.map((g) => `"${g}"`).join(', ')} are computed from`,
      );
    }
    if (current.default_value !== null) yield { sql: `alter table ${t} alter column ${c} drop default` };
    yield {
      sql: `alter table ${t} alter column ${c} type ${plainTypeOf(target)} using ${usingExpression(c, target, conversion)}`,
    };
  }
  if (changes.type || changes.default) {
    const dflt = defaultSql(target);
    if (dflt !== null) yield { sql: `alter table ${t} alter column ${c} set default ${dflt}` };
    else if (!changes.type) yield { sql: `alter table ${t} alter column ${c} drop default` };
  }
  if (changes.nullable)
    yield { sql: `alter table ${t} alter column ${c} ${target.nullable ? 'drop' : 'set'} not null` };
  if (changes.comment) yield setComment(table, current.name, target.comment);
  if (changes.unique) {
    if (target.unique)
      yield { sql: `create unique index ${q(constraintName(table, current.name, 'unique'))} on ${t} (${c})` };
    else yield* dropIndexes(catalog, table, current.name, true);
  }
  if (changes.indexed) {
    if (target.indexed) yield { sql: `create index ${q(constraintName(table, current.name, 'index'))} on ${t} (${c})` };
    else yield* dropIndexes(catalog, table, current.name, false);
  }
}

export const postgresDdl: SchemaDdl = {
  transactional: true,
  comments: true,
  nativeUuid: true,

  transaction: (knex, work) => knex.transaction(work),
  run,

  shape(spec): StorageShape {
    const shape: StorageShape = { data_type: SHAPES[spec.type] };
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
        const keys = step.columns.filter((c) => c.primaryKey).map((c) => q(c.name));
        const definitions = step.columns.map(columnDefinition);
        if (keys.length) definitions.push(`primary key (${keys.join(', ')})`);
        yield { sql: `create table ${q(step.table)} (${definitions.join(', ')})` };
        for (const column of step.columns) yield* createIndexes(step.table, column);
        return;
      }
      case 'addColumn':
        yield { sql: `alter table ${q(step.table)} add column ${columnDefinition(step.column)}` };
        yield* createIndexes(step.table, step.column);
        return;
      case 'alterColumn':
        yield* alterColumn(step, catalog);
        return;
      case 'dropColumn':
        // Keys of other tables that reference this column would block the drop; the column's own go with it.
        for (const key of step.keys)
          if (key.table !== step.table || key.column !== step.column) yield* dropForeignKey(key);
        yield { sql: `alter table ${q(step.table)} drop column ${q(step.column)}` };
        return;
      case 'dropTable':
        for (const key of step.keys) if (key.table !== step.table) yield* dropForeignKey(key);
        yield { sql: `drop table ${q(step.table)}` };
        return;
      case 'addForeignKey':
        yield addForeignKey(step.key);
        return;
      case 'dropForeignKey':
        yield* dropForeignKey(step.key);
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
