/**
 * MySQL/MariaDB DDL for schema changes: each step rendered as statements. DDL is not transactional here (each
 * statement commits), so the schema change runner checks everything first, then alters, and each statement carries
 * the statements that put it back if a later one fails. A column that is part of a foreign key (either side) cannot change type while the key
 * exists: the keys are dropped, the column modified, and the keys added again; if a key does not fit the new type
 * the column is modified back and the keys restored.
 */
import type { ForeignKeyInfo } from '../../../schema/types.js';
import { statementRunner } from '../../ddl-exec.js';
import type { CatalogRow } from '../../introspection-utils.js';
import { constraintName } from '../../ddl-names.js';
import type { ColumnSpec, DdlCatalog, DdlStatement, SchemaDdl, StorageShape } from '../../schema-ddl.js';
import type { DdlStep } from '../../../schema-admin/plan/schema-steps.js';
import { decimalLimit, INTEGER_RANGE, type ConversionCheck } from '../../../schema-admin/plan/type-conversions.js';
import {
  catalogColumn,
  catalogDefinition,
  literal,
  q,
  singleColumnIndexes,
  type CatalogColumn,
} from './ddl-catalog.js';

interface CallbackConnection {
  query(sql: string, params: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
}

const run = statementRunner(
  (connection, sql, params) =>
    new Promise<CatalogRow[]>((resolve, reject) => {
      (connection as CallbackConnection).query(sql, params, (err, rows) => {
        if (err) reject(err);
        else resolve(Array.isArray(rows) ? (rows as CatalogRow[]) : []);
      });
    }),
);

function typeOf(spec: ColumnSpec): string {
  switch (spec.type) {
    case 'string':
      return `varchar(${spec.maxLength ?? 255})`;
    case 'decimal':
      return `decimal(${spec.precision ?? 10}, ${spec.scale ?? 5})`;
    default:
      return TYPES[spec.type];
  }
}

const TYPES: Record<ColumnSpec['type'], string> = {
  string: 'varchar(255)',
  text: 'text',
  integer: 'int',
  bigInteger: 'bigint',
  boolean: 'tinyint(1)',
  decimal: 'decimal(10, 5)',
  float: 'double',
  json: 'json',
  date: 'date',
  dateTime: 'datetime',
  // Milliseconds are part of the timestamp wire format.
  timestamp: 'timestamp(3)',
  time: 'time',
  uuid: 'char(36)',
  binary: 'blob',
};

const SHAPES: Record<ColumnSpec['type'], string> = {
  string: 'varchar',
  text: 'text',
  integer: 'int',
  bigInteger: 'bigint',
  boolean: 'tinyint',
  decimal: 'decimal',
  float: 'double',
  json: 'json',
  date: 'date',
  dateTime: 'datetime',
  timestamp: 'timestamp',
  time: 'time',
  uuid: 'char',
  binary: 'blob',
};

function defaultClause(spec: ColumnSpec, columnType = typeOf(spec)): string {
  const value = spec.default;
  if (value.kind === 'none') return '';
  // The clock default carries the column's fractional seconds (timestamp(3)).
  if (value.kind === 'now') {
    const fraction = /\((\d)\)/.exec(columnType)?.[1];
    return ` default current_timestamp${fraction ? `(${fraction})` : ''}`;
  }
  if (typeof value.value === 'boolean') return ` default ${value.value ? 1 : 0}`;
  if (typeof value.value === 'number') return ` default ${value.value}`;
  // Date-time literals take a space and no zone here (the session runs in UTC).
  if (spec.type === 'timestamp' || spec.type === 'dateTime')
    return ` default ${literal(value.value.replace('T', ' ').replace(/Z$/, ''))}`;
  return ` default ${literal(value.value)}`;
}

function columnDefinition(spec: ColumnSpec): string {
  const nullable = spec.nullable && !spec.primaryKey;
  const increment = spec.autoIncrement ? ' auto_increment' : '';
  const comment = spec.comment !== null ? ` comment ${literal(spec.comment)}` : '';
  return `${q(spec.name)} ${typeOf(spec)} ${nullable ? 'null' : 'not null'}${increment}${spec.autoIncrement ? '' : defaultClause(spec)}${comment}`;
}

const NUMERIC_TEXT = '^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)[[:space:]]*$';

/** SQL that is true for a value the conversion would not keep; regular expressions go in as parameters. */
function lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec, params: unknown[]): string {
  const range =
    target.type === 'integer' || target.type === 'bigInteger' ? INTEGER_RANGE[target.type] : INTEGER_RANGE.bigInteger;
  const pattern = (regex: string) => {
    params.push(regex);
    return '?';
  };
  const number = `cast(trim(${c}) as decimal(65, 30))`;
  switch (check) {
    case 'none':
      return '0';
    case 'length':
      return `char_length(${c}) > ${target.maxLength ?? 255}`;
    case 'integral':
      return `(${c} <> truncate(${c}, 0) or ${c} < ${range[0]} or ${c} > ${range[1]})`;
    case 'integer-text':
      return `case when ${c} regexp ${pattern('^[[:space:]]*[-+]?[0-9]{1,19}[[:space:]]*$')} then cast(trim(${c}) as decimal(65, 0)) not between ${range[0]} and ${range[1]} else 1 end`;
    case 'decimal-fit':
      return `(round(${c}, ${target.scale ?? 5}) <> ${c} or abs(${c}) >= ${decimalLimit(target)})`;
    case 'decimal-text':
      return `case when ${c} regexp ${pattern(NUMERIC_TEXT)} then (round(${number}, ${target.scale ?? 5}) <> ${number} or abs(${number}) >= ${decimalLimit(target)}) else 1 end`;
    case 'float-exact':
      return `abs(${c}) > 9007199254740992`;
    case 'float-text':
      return `not (${c} regexp ${pattern('^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]{1,3})?[[:space:]]*$')})`;
    case 'boolean-int':
      return `${c} not in (0, 1)`;
    case 'uuid-text':
      return `not (${c} regexp ${pattern('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')})`;
    case 'json-text':
      return `not json_valid(${c})`;
    case 'date-text':
      return `(not (${c} regexp ${pattern('^[[:space:]]*[0-9]{4}-[0-9]{2}-[0-9]{2}[[:space:]]*$')}) or str_to_date(trim(${c}), '%Y-%m-%d') is null)`;
    case 'datetime-text':
      return `not (${c} regexp ${pattern('^[[:space:]]*[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?[[:space:]]*$')})`;
    case 'time-text':
      return `not (${c} regexp ${pattern('^[[:space:]]*[0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?[[:space:]]*$')})`;
    case 'midnight':
      return `time(${c}) <> '00:00:00'`;
  }
}

function addKeySql(key: ForeignKeyInfo): string {
  const name = key.constraint_name ?? constraintName(key.table, key.column, 'foreign');
  const actions = `${key.on_delete ? ` on delete ${key.on_delete}` : ''}${key.on_update ? ` on update ${key.on_update}` : ''}`;
  return `alter table ${q(key.table)} add constraint ${q(name)} foreign key (${q(key.column)}) references ${q(key.foreign_key_table)} (${q(key.foreign_key_column)})${actions}`;
}

/** errno 150 / 3780: the two columns of a foreign key are not of compatible types. */
function isIncompatibleKey(error: unknown): boolean {
  const { errno, code } = error as { errno?: number; code?: string };
  return (
    errno === 150 ||
    errno === 1005 ||
    errno === 3780 ||
    code === 'ER_FK_INCOMPATIBLE_COLUMNS' ||
    code === 'ER_CANT_CREATE_TABLE'
  );
}

async function* addForeignKey(catalog: DdlCatalog, key: ForeignKeyInfo): AsyncGenerator<DdlStatement> {
  // A key needs both columns of one type; integer keys differing only in sign (or width) are aligned first.
  const [own, referenced] = await Promise.all([
    catalogColumn(catalog, key.table, key.column),
    catalogColumn(catalog, key.foreign_key_table, key.foreign_key_column),
  ]);
  if (own.type !== referenced.type && /int/.test(own.type) && /int/.test(referenced.type)) {
    yield {
      sql: `alter table ${q(key.table)} modify column ${catalogDefinition(key.column, { ...own, type: referenced.type })}`,
      undo: [{ sql: `alter table ${q(key.table)} modify column ${catalogDefinition(key.column, own)}` }],
    };
  }
  yield {
    ...addKey(key),
    refusal: `"${key.table}.${key.column}" and "${key.foreign_key_table}.${key.foreign_key_column}" are not of the same type`,
  };
}

function addKey(key: ForeignKeyInfo): DdlStatement {
  const name = key.constraint_name ?? constraintName(key.table, key.column, 'foreign');
  return { sql: addKeySql(key), undo: [{ sql: `alter table ${q(key.table)} drop foreign key ${q(name)}` }] };
}

/** `restorable`: undone by adding the key back (false where the step that drops it cannot be undone anyway). */
function* dropForeignKey(key: ForeignKeyInfo, restorable = true): Generator<DdlStatement> {
  if (!key.constraint_name) return;
  yield {
    sql: `alter table ${q(key.table)} drop foreign key ${q(key.constraint_name)}`,
    ...(restorable ? { undo: [{ sql: addKeySql(key) }] } : {}),
  };
}

async function* alterColumn(
  step: Extract<DdlStep, { kind: 'alterColumn' }>,
  catalog: DdlCatalog,
): AsyncGenerator<DdlStatement> {
  const { table, current, target, changes, keys } = step;
  if (changes.type || changes.nullable || changes.default || changes.comment) {
    const before = await catalogColumn(catalog, table, current.name);
    const type = changes.type ? typeOf(target) : before.type;
    const after: CatalogColumn = {
      type,
      nullable: changes.nullable ? target.nullable : before.nullable,
      defaultClause: changes.type || changes.default ? defaultClause(target, type) : before.defaultClause,
      extra: before.extra,
      comment: changes.comment ? (target.comment ?? '') : before.comment,
      collation: /char|text/i.test(type) ? before.collation : '',
    };
    // The keys on either side of the column are in the way of a type change: off, modify, on again.
    const blocking = changes.type ? keys.filter((k) => k.constraint_name) : [];
    for (const key of blocking) yield* dropForeignKey(key);
    yield {
      sql: `alter table ${q(table)} modify column ${catalogDefinition(current.name, after)}`,
      undo: [{ sql: `alter table ${q(table)} modify column ${catalogDefinition(current.name, before)}` }],
    };
    for (const key of blocking) {
      yield {
        ...addKey(key),
        refusal: `the foreign key from "${key.table}.${key.column}" to "${key.foreign_key_table}.${key.foreign_key_column}" needs both columns of the same type`,
      };
    }
  }
  if (changes.unique) {
    if (target.unique) {
      const name = constraintName(table, current.name, 'unique');
      yield {
        sql: `alter table ${q(table)} add unique key ${q(name)} (${q(current.name)})`,
        undo: [{ sql: `alter table ${q(table)} drop index ${q(name)}` }],
      };
    } else {
      for (const name of await singleColumnIndexes(catalog, table, current.name, true)) {
        yield {
          sql: `alter table ${q(table)} drop index ${q(name)}`,
          undo: [{ sql: `alter table ${q(table)} add unique key ${q(name)} (${q(current.name)})` }],
        };
      }
    }
  }
  if (changes.indexed) {
    if (target.indexed) {
      const name = constraintName(table, current.name, 'index');
      yield {
        sql: `alter table ${q(table)} add key ${q(name)} (${q(current.name)})`,
        undo: [{ sql: `alter table ${q(table)} drop index ${q(name)}` }],
      };
    } else {
      for (const name of await singleColumnIndexes(catalog, table, current.name, false)) {
        yield {
          sql: `alter table ${q(table)} drop index ${q(name)}`,
          undo: [{ sql: `alter table ${q(table)} add key ${q(name)} (${q(current.name)})` }],
        };
      }
    }
  }
}

export const mysqlDdl: SchemaDdl = {
  transactional: false,
  comments: true,
  nativeUuid: false,

  transaction: (knex, work) => knex.transaction(work),
  run,

  shape(spec): StorageShape {
    const shape: StorageShape = { data_type: SHAPES[spec.type] };
    if (spec.type === 'string') shape.max_length = spec.maxLength ?? 255;
    if (spec.type === 'uuid') shape.max_length = 36;
    if (spec.type === 'decimal') {
      shape.numeric_precision = spec.precision ?? 10;
      shape.numeric_scale = spec.scale ?? 5;
    }
    return shape;
  },

  async *statements(step, catalog) {
    switch (step.kind) {
      case 'createTable': {
        const { table, columns } = step;
        const keys = columns.filter((c) => c.primaryKey).map((c) => q(c.name));
        const definitions = columns.map(columnDefinition);
        if (keys.length) definitions.push(`primary key (${keys.join(', ')})`);
        for (const column of columns) {
          if (column.primaryKey) continue;
          if (column.unique)
            definitions.push(`unique key ${q(constraintName(table, column.name, 'unique'))} (${q(column.name)})`);
          else if (column.indexed)
            definitions.push(`key ${q(constraintName(table, column.name, 'index'))} (${q(column.name)})`);
        }
        // The connection's character set, as knex gives Strata's own tables: string keys between tables (to
        // service_users, say) need equal collations.
        yield {
          sql: `create table ${q(table)} (${definitions.join(', ')}) default character set utf8mb4`,
          undo: [{ sql: `drop table if exists ${q(table)}` }],
        };
        return;
      }
      case 'addColumn': {
        const { table, column } = step;
        const indexes = column.primaryKey
          ? ''
          : column.unique
            ? `, add unique key ${q(constraintName(table, column.name, 'unique'))} (${q(column.name)})`
            : column.indexed
              ? `, add key ${q(constraintName(table, column.name, 'index'))} (${q(column.name)})`
              : '';
        yield {
          sql: `alter table ${q(table)} add column ${columnDefinition(column)}${indexes}`,
          undo: [{ sql: `alter table ${q(table)} drop column ${q(column.name)}` }],
        };
        return;
      }
      case 'alterColumn':
        yield* alterColumn(step, catalog);
        return;
      case 'dropColumn':
        for (const key of step.keys) yield* dropForeignKey(key, false);
        yield { sql: `alter table ${q(step.table)} drop column ${q(step.column)}` };
        return;
      case 'dropTable':
        for (const key of step.keys) if (key.table !== step.table) yield* dropForeignKey(key, false);
        yield { sql: `drop table ${q(step.table)}` };
        return;
      case 'addForeignKey':
        yield* addForeignKey(catalog, step.key);
        return;
      case 'dropForeignKey':
        yield* dropForeignKey(step.key);
        return;
    }
  },

  refuses: isIncompatibleKey,

  lossyCount(table, column, check, target) {
    const c = q(column);
    const params: unknown[] = [];
    const predicate = lossyPredicate(c, check, target, params);
    return { sql: `select count(*) as n from ${q(table)} where ${c} is not null and (${predicate})`, params };
  },
};
