/**
 * PostgreSQL DDL for schema changes: each step rendered as statements. DDL is transactional here: a change runs in
 * one transaction with its metadata, so a failure anywhere leaves nothing behind (no undo statements needed).
 */
import type pg from 'pg';
import type { ForeignKeyInfo } from '../../../schema/types.js';
import { statementRunner } from '../../ddl-exec.js';
import { constraintName } from '../../ddl-names.js';
import { decimalLimit, DdlRenderer, integerRange, type StepOf } from '../../ddl-renderer.js';
import { SchemaRefusedError, type DdlCatalog, type DdlStatement, type SchemaDdl } from '../../schema-ddl.js';
import type { ColumnSpec, StorageType } from '../../../schema-admin/plan/column-spec.js';
import type { ConversionCheck } from '../../../schema-admin/plan/type-conversions.js';

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

const run = statementRunner(
  async (connection, sql, params) => (await (connection as pg.Client).query({ text: sql, values: params })).rows,
);

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
function usingExpression(column: string, plainType: string, conversion: ConversionCheck | null): string {
  if (conversion === 'boolean-int') return `(${column} <> 0)`;
  return `${column}::${plainType}`;
}

const NUMERIC_TEXT = `'^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)\\s*$'`;

/** SQL that is true for a value (of the quoted column `c`) the conversion would not keep. */
function lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec): string {
  const range = integerRange(target);
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

function* dropForeignKey(key: ForeignKeyInfo): Generator<DdlStatement> {
  if (key.constraint_name)
    yield { sql: `alter table ${q(key.table)} drop constraint if exists ${q(key.constraint_name)}` };
}

class PostgresDdl extends DdlRenderer {
  readonly transactional = true;
  readonly comments = true;
  readonly nativeUuid = true;
  readonly autoIncrementBesideKey = true;
  readonly run = run;

  protected readonly types: Record<StorageType, string> = {
    string: 'varchar',
    text: 'text',
    integer: 'integer',
    bigInteger: 'bigint',
    boolean: 'boolean',
    decimal: 'numeric',
    float: 'double precision',
    json: 'json',
    date: 'date',
    dateTime: 'timestamp',
    timestamp: 'timestamptz',
    time: 'time',
    uuid: 'uuid',
    binary: 'bytea',
  };

  protected readonly shapes: Record<StorageType, string> = {
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

  override typeOf(spec: ColumnSpec): string {
    if (spec.type === 'decimal') return `numeric(${spec.precision ?? 10}, ${spec.scale ?? 5})`;
    if (spec.autoIncrement && spec.type === 'integer') return 'serial';
    if (spec.autoIncrement && spec.type === 'bigInteger') return 'bigserial';
    return super.typeOf(spec);
  }

  /** The type without serial sugar (ALTER COLUMN TYPE takes no serial). */
  plainTypeOf(spec: ColumnSpec): string {
    return this.typeOf({ ...spec, autoIncrement: false });
  }

  setComment(table: string, column: string, comment: string | null): DdlStatement {
    return {
      sql: `comment on column ${q(table)}.${q(column)} is ${comment === null ? 'null' : this.literal(comment)}`,
    };
  }

  protected override *createIndexes(table: string, spec: ColumnSpec): Generator<DdlStatement> {
    yield* super.createIndexes(table, spec);
    if (spec.comment !== null) yield this.setComment(table, spec.name, spec.comment);
  }

  protected async *alterColumn(step: StepOf<'alterColumn'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
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
        sql: `alter table ${t} alter column ${c} type ${this.plainTypeOf(target)} using ${usingExpression(c, this.plainTypeOf(target), conversion)}`,
      };
    }
    if (changes.type || changes.default) {
      const dflt = this.defaultSql(target);
      if (dflt !== null) yield { sql: `alter table ${t} alter column ${c} set default ${dflt}` };
      else if (!changes.type) yield { sql: `alter table ${t} alter column ${c} drop default` };
    }
    if (changes.nullable)
      yield { sql: `alter table ${t} alter column ${c} ${target.nullable ? 'drop' : 'set'} not null` };
    if (changes.comment) yield this.setComment(table, current.name, target.comment);
    if (changes.unique) {
      if (target.unique)
        yield { sql: `create unique index ${q(constraintName(table, current.name, 'unique'))} on ${t} (${c})` };
      else yield* dropIndexes(catalog, table, current.name, true);
    }
    if (changes.indexed) {
      if (target.indexed)
        yield { sql: `create index ${q(constraintName(table, current.name, 'index'))} on ${t} (${c})` };
      else yield* dropIndexes(catalog, table, current.name, false);
    }
  }

  protected async *dropColumn(step: StepOf<'dropColumn'>): AsyncGenerator<DdlStatement> {
    // Keys of other tables that reference this column would block the drop; the column's own go with it.
    for (const key of step.keys) if (key.table !== step.table || key.column !== step.column) yield* dropForeignKey(key);
    yield { sql: `alter table ${q(step.table)} drop column ${q(step.column)}` };
  }

  protected dropReferencingKey(key: ForeignKeyInfo): Generator<DdlStatement> {
    return dropForeignKey(key);
  }

  protected lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec): string {
    return lossyPredicate(c, check, target);
  }
}

export const postgresDdl: SchemaDdl = new PostgresDdl();
