/**
 * A schema change as data: the checks, DDL steps and metadata writes a service plans (pure, from the schema
 * overview), which src/db/schema-executor.ts runs and each dialect's ddl.ts turns into statements. Being data, a plan
 * can be printed (`formatSteps`), compared and golden-tested (test/sql/ddl).
 */
import type { ColumnInfo, ForeignKeyInfo } from '../../schema/types.js';
import type { ColumnChanges, ColumnSpec } from './column-spec.js';
import type { ConversionCheck } from './type-conversions.js';

/** A structural change, interpreted per dialect. `keys`: the single-column foreign keys involving the column or table. */
export type DdlStep =
  | { kind: 'createTable'; table: string; columns: ColumnSpec[] }
  | { kind: 'addColumn'; table: string; column: ColumnSpec }
  /** `current` as introspected; `conversion` is the check a type change passed (how values convert follows it). */
  | {
      kind: 'alterColumn';
      table: string;
      current: ColumnInfo;
      target: ColumnSpec;
      changes: ColumnChanges;
      conversion: ConversionCheck | null;
      keys: ForeignKeyInfo[];
    }
  /** Drops the column with its indexes and the keys it is part of (other tables' keys to it first). */
  | { kind: 'dropColumn'; table: string; column: string; keys: ForeignKeyInfo[] }
  /** `keys`: other tables' foreign keys to this table, dropped first. */
  | { kind: 'dropTable'; table: string; keys: ForeignKeyInfo[] }
  | { kind: 'addForeignKey'; key: ForeignKeyInfo }
  | { kind: 'dropForeignKey'; key: ForeignKeyInfo };

/** What a check counts; a change runs only when the count is at most `atMost`. */
export type CountQuery =
  | { count: 'rows'; table: string }
  | { count: 'nulls'; table: string; column: string }
  /** Values held by more than one row. */
  | { count: 'duplicates'; table: string; column: string }
  /** Non-null values the conversion to `target` would not keep. */
  | { count: 'lossy'; table: string; column: string; conversion: ConversionCheck; target: ColumnSpec }
  /** Rows whose value names no row of the foreign table. */
  | { count: 'orphans'; table: string; column: string; foreignTable: string; foreignColumn: string };

/** Why a check refuses the change, for the coded error; `counted` puts the count found between its two parts. */
export type Refusal =
  | { kind: 'containsNulls'; collection: string; field: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'counted'; before: string; after: string };

export interface CheckStep {
  kind: 'check';
  query: CountQuery;
  atMost: number;
  refusal: Refusal;
}

/** The metadata tables a schema change writes. */
export type MetaTable =
  | 'service_fields'
  | 'service_collections'
  | 'service_relations'
  | 'service_permissions'
  | 'service_revisions'
  | 'service_activity'
  | 'service_versions'
  | 'service_comments'
  | 'service_notifications'
  | 'service_presets';

type Row = Record<string, unknown>;

export type WriteStep =
  | { kind: 'insertRow'; table: MetaTable; row: Row }
  | { kind: 'updateRows'; table: MetaTable; where: Row; set: Row }
  | { kind: 'deleteRows'; table: MetaTable; where: Row }
  /** Permission rows list their fields as CSV: the field leaves every list of the collection's rows. */
  | { kind: 'dropPermissionField'; collection: string; field: string };

export type SchemaStep = CheckStep | DdlStep | WriteStep;

/** The three phases of a change, run in this order. */
export interface SchemaSteps {
  checks: readonly CheckStep[];
  ddl: readonly DdlStep[];
  writes: readonly WriteStep[];
}

function column(spec: ColumnSpec): string {
  const type =
    spec.type === 'string'
      ? `string(${spec.maxLength ?? 255})`
      : spec.type === 'decimal'
        ? `decimal(${spec.precision ?? 10}, ${spec.scale ?? 5})`
        : spec.type;
  const parts = [spec.name, type];
  if (spec.primaryKey) parts.push(spec.autoIncrement ? 'primary key auto-increment' : 'primary key');
  else if (!spec.nullable) parts.push('not null');
  if (spec.default.kind === 'now') parts.push('default now');
  if (spec.default.kind === 'today') parts.push('default today');
  if (spec.default.kind === 'randomUuid') parts.push('default random uuid');
  if (spec.default.kind === 'value') parts.push(`default ${JSON.stringify(spec.default.value)}`);
  if (spec.unique && !spec.primaryKey) parts.push('unique');
  else if (spec.indexed && !spec.primaryKey) parts.push('indexed');
  if (spec.comment !== null) parts.push(`comment ${JSON.stringify(spec.comment)}`);
  return parts.join(' ');
}

function key(k: ForeignKeyInfo): string {
  const actions = `${k.on_delete ? ` on delete ${k.on_delete}` : ''}${k.on_update ? ` on update ${k.on_update}` : ''}`;
  return `${k.table}.${k.column} → ${k.foreign_key_table}.${k.foreign_key_column}${actions}`;
}

const where = (row: Row) =>
  Object.entries(row)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join(' and ');

/** One line per step, vendor-neutral: what `strata`'s logs and a dry run can show. */
export function formatStep(step: SchemaStep): string {
  switch (step.kind) {
    case 'check': {
      const q = step.query;
      const what =
        q.count === 'rows'
          ? 'rows'
          : q.count === 'orphans'
            ? `orphans of ${q.column} → ${q.foreignTable}.${q.foreignColumn}`
            : `${q.count} in ${q.column}`;
      const how = q.count === 'lossy' ? ` (${q.conversion} to ${column(q.target)})` : '';
      return `check ${q.table}: ${what}${how} ≤ ${step.atMost}`;
    }
    case 'createTable':
      return `create table ${step.table} (${step.columns.map(column).join(', ')})`;
    case 'addColumn':
      return `add column ${step.table}.${column(step.column)}`;
    case 'alterColumn': {
      const changed = (Object.keys(step.changes) as (keyof ColumnChanges)[]).filter((c) => step.changes[c]);
      return `alter column ${step.table}.${column(step.target)} [${changed.join(', ')}]${step.conversion ? ` converting ${step.conversion}` : ''}`;
    }
    case 'dropColumn':
      return `drop column ${step.table}.${step.column}`;
    case 'dropTable':
      return `drop table ${step.table}`;
    case 'addForeignKey':
      return `add foreign key ${key(step.key)}`;
    case 'dropForeignKey':
      return `drop foreign key ${key(step.key)}`;
    case 'insertRow':
      return `insert ${step.table} ${JSON.stringify(step.row)}`;
    case 'updateRows':
      return `update ${step.table} set ${JSON.stringify(step.set)} where ${where(step.where)}`;
    case 'deleteRows':
      return `delete ${step.table} where ${where(step.where)}`;
    case 'dropPermissionField':
      return `remove ${step.collection}.${step.field} from permission field lists`;
  }
}

export function formatSteps(steps: SchemaSteps): string {
  return [...steps.checks, ...steps.ddl, ...steps.writes].map(formatStep).join('\n');
}
