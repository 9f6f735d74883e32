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
import { decimalLimit, DdlRenderer, integerRange, type StepOf } from '../../ddl-renderer.js';
import type { DdlCatalog, DdlStatement, SchemaDdl, StorageShape } from '../../schema-ddl.js';
import type { ColumnSpec, StorageType } from '../../../schema-admin/plan/column-spec.js';
import type { ConversionCheck } from '../../../schema-admin/plan/type-conversions.js';
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

const NUMERIC_TEXT = '^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)[[:space:]]*$';

/** SQL that is true for a value the conversion would not keep; regular expressions go in as parameters. */
function lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec, params: unknown[]): string {
  const range = integerRange(target);
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

class MysqlDdl extends DdlRenderer {
  readonly transactional = false;
  readonly comments = true;
  readonly autoIncrementBesideKey = false;
  readonly nativeUuid = false;
  readonly run = run;

  protected readonly types: Record<StorageType, string> = {
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

  protected readonly shapes: Record<StorageType, string> = {
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

  override quote(name: string): string {
    return q(name);
  }

  override literal(text: string): string {
    return literal(text);
  }

  protected override booleanLiteral(value: boolean): string {
    return value ? '1' : '0';
  }

  /** The clock default carries the column's fractional seconds (timestamp(3)). */
  protected override clockDefault(columnType: string): string {
    const fraction = /\((\d)\)/.exec(columnType)?.[1];
    return `current_timestamp${fraction ? `(${fraction})` : ''}`;
  }

  /**
   * Functions other than the clock are defaults in parentheses (MySQL 8 wants them; MariaDB takes them). `uuid()` makes
   * version 1 uuids (MariaDB before 11.7 has no random ones): unique all the same.
   */
  protected override todayDefault(): string {
    return '(curdate())';
  }

  protected override randomUuidDefault(): string {
    return '(uuid())';
  }

  /** Date-time literals take a space and no zone here (the session runs in UTC). */
  protected override textDefault(spec: ColumnSpec, text: string): string {
    if (spec.type === 'timestamp' || spec.type === 'dateTime') return literal(text.replace('T', ' ').replace(/Z$/, ''));
    return literal(text);
  }

  /** ` default …` of a column of `columnType`, or ''. */
  defaultClause(spec: ColumnSpec, columnType: string): string {
    const dflt = this.defaultSql(spec, columnType);
    return dflt === null ? '' : ` default ${dflt}`;
  }

  protected override nullClause(spec: ColumnSpec): string[] {
    return [spec.nullable && !spec.primaryKey ? 'null' : 'not null'];
  }

  protected override keyClause(spec: ColumnSpec): string[] {
    return spec.autoIncrement ? ['auto_increment'] : [];
  }

  protected override commentClause(spec: ColumnSpec): string[] {
    return spec.comment !== null ? [`comment ${literal(spec.comment)}`] : [];
  }

  /** A key needs both columns of one type; integer keys differing only in sign (or width) are aligned first. */
  protected override async *addForeignKey(
    step: StepOf<'addForeignKey'>,
    catalog: DdlCatalog,
  ): AsyncGenerator<DdlStatement> {
    const { key } = step;
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
      ...this.addKey(key),
      refusal: `"${key.table}.${key.column}" and "${key.foreign_key_table}.${key.foreign_key_column}" are not of the same type`,
    };
  }

  private addKey(key: ForeignKeyInfo): DdlStatement {
    const name = key.constraint_name ?? constraintName(key.table, key.column, 'foreign');
    return {
      sql: this.addForeignKeySql(key),
      undo: [{ sql: `alter table ${q(key.table)} drop foreign key ${q(name)}` }],
    };
  }

  /** `restorable`: undone by adding the key back (false where the step that drops it cannot be undone anyway). */
  private *dropKey(key: ForeignKeyInfo, restorable = true): Generator<DdlStatement> {
    if (!key.constraint_name) return;
    yield {
      sql: `alter table ${q(key.table)} drop foreign key ${q(key.constraint_name)}`,
      ...(restorable ? { undo: [{ sql: this.addForeignKeySql(key) }] } : {}),
    };
  }

  protected override async *createTable(step: StepOf<'createTable'>): AsyncGenerator<DdlStatement> {
    const { table, columns } = step;
    const definitions = this.tableDefinitions(columns);
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
  }

  protected override async *addColumn(step: StepOf<'addColumn'>): AsyncGenerator<DdlStatement> {
    const { table, column } = step;
    const indexes = column.primaryKey
      ? ''
      : column.unique
        ? `, add unique key ${q(constraintName(table, column.name, 'unique'))} (${q(column.name)})`
        : column.indexed
          ? `, add key ${q(constraintName(table, column.name, 'index'))} (${q(column.name)})`
          : '';
    yield {
      sql: `alter table ${q(table)} add column ${this.columnDefinition(column)}${indexes}`,
      undo: [{ sql: `alter table ${q(table)} drop column ${q(column.name)}` }],
    };
  }

  protected async *alterColumn(step: StepOf<'alterColumn'>, catalog: DdlCatalog): AsyncGenerator<DdlStatement> {
    const { table, current, target, changes, keys } = step;
    if (changes.type || changes.nullable || changes.default || changes.comment) {
      const before = await catalogColumn(catalog, table, current.name);
      const type = changes.type ? this.typeOf(target) : before.type;
      const after: CatalogColumn = {
        type,
        nullable: changes.nullable ? target.nullable : before.nullable,
        defaultClause: changes.type || changes.default ? this.defaultClause(target, type) : before.defaultClause,
        extra: before.extra,
        comment: changes.comment ? (target.comment ?? '') : before.comment,
        collation: /char|text/i.test(type) ? before.collation : '',
      };
      // The keys on either side of the column are in the way of a type change: off, modify, on again.
      const blocking = changes.type ? keys.filter((k) => k.constraint_name) : [];
      for (const key of blocking) yield* this.dropKey(key);
      yield {
        sql: `alter table ${q(table)} modify column ${catalogDefinition(current.name, after)}`,
        undo: [{ sql: `alter table ${q(table)} modify column ${catalogDefinition(current.name, before)}` }],
      };
      for (const key of blocking) {
        yield {
          ...this.addKey(key),
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

  protected async *dropColumn(step: StepOf<'dropColumn'>): AsyncGenerator<DdlStatement> {
    for (const key of step.keys) yield* this.dropKey(key, false);
    yield { sql: `alter table ${q(step.table)} drop column ${q(step.column)}` };
  }

  /** Not restorable: the drop that follows cannot be undone anyway. */
  protected dropReferencingKey(key: ForeignKeyInfo): Generator<DdlStatement> {
    return this.dropKey(key, false);
  }

  protected override async *dropForeignKey(step: StepOf<'dropForeignKey'>): AsyncGenerator<DdlStatement> {
    yield* this.dropKey(step.key);
  }

  override refuses(error: unknown): boolean {
    return isIncompatibleKey(error);
  }

  /** Regular expressions go in as parameters. */
  protected lossyPredicate(c: string, check: ConversionCheck, target: ColumnSpec, params: unknown[]): string {
    return lossyPredicate(c, check, target, params);
  }

  override shape(spec: ColumnSpec): StorageShape {
    const shape = super.shape(spec);
    if (spec.type === 'uuid') shape.max_length = 36;
    return shape;
  }
}

export const mysqlDdl: SchemaDdl = new MysqlDdl();
