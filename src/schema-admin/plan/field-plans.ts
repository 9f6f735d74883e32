/**
 * The steps of creating, changing and deleting a field, added to a SchemaChangePlan. Shared by the fields service
 * and the collections service (a collection's fields, the fields of other collections that point at a deleted
 * collection). Decisions are taken on the schema overview; the plan's checks look at the data.
 */
import type { SchemaDdl } from '../../db/schema-ddl.js';
import type { ColumnSpec } from './column-spec.js';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { FieldInput } from '../input/field-input.js';
import type { FieldOverview, ForeignKeyInfo, SchemaOverview } from '../../schema/types.js';
import { alterColumn, hasChanges, newColumn, specialFor } from './field-columns.js';
import { fieldMetaRow } from './meta-rows.js';
import type { SchemaChangePlan } from '../schema-changes.js';
import type { Row } from '../../db/connection.js';

export interface PlanContext {
  schema: SchemaOverview;
  ddl: SchemaDdl;
}

/** The single-column foreign keys that involve a column, on either side. */
export function keysOf(schema: SchemaOverview, collection: string, column: string): ForeignKeyInfo[] {
  return schema.relations
    .map((r) => r.schema)
    .filter(
      (k): k is ForeignKeyInfo =>
        k !== null &&
        ((k.table === collection && k.column === column) ||
          (k.foreign_key_table === collection && k.foreign_key_column === column)),
    );
}

/** What creating a field amounts to: its column (null for alias fields) and its service_fields row (null: none). */
export function fieldCreation(
  ctx: PlanContext,
  collection: string,
  input: FieldInput,
  primaryKeyAllowed: boolean,
): { column: ColumnSpec | null; metaRow: Row | null } {
  const type = input.type!;
  const meta = input.meta ?? null;
  const special = specialFor(type, meta?.special ?? null, ctx.ddl.nativeUuid, { aliasSpecial: input.aliasSpecial });
  if (type === 'alias') {
    // An alias field exists only as its metadata row.
    return { column: null, metaRow: { collection, field: input.field, ...fieldMetaRow({ ...(meta ?? {}), special }) } };
  }
  if (input.schema === null)
    throw new InvalidPayloadError(`Field "${input.field}" of type ${type} needs a column: "schema" can't be null`);
  const column = newColumn(input, type, primaryKeyAllowed, ctx.ddl.autoIncrementBesideKey);
  const needsRow = meta !== null || (special !== null && special.length > 0);
  return {
    column,
    metaRow: needsRow ? { collection, field: input.field, ...fieldMetaRow({ ...(meta ?? {}), special }) } : null,
  };
}

/** Adds a field to an existing collection. */
export function planFieldCreate(plan: SchemaChangePlan, ctx: PlanContext, collection: string, input: FieldInput): void {
  const target = ctx.schema.collections[collection]!;
  if (Object.keys(target.fields).some((name) => name.toLowerCase() === input.field.toLowerCase())) {
    throw new InvalidPayloadError(`Field "${input.field}" already exists in collection "${collection}"`);
  }
  const { column, metaRow } = fieldCreation(ctx, collection, input, false);
  if (column) {
    if (!target.schema)
      throw new InvalidPayloadError(`Collection "${collection}" is a folder: its fields can only be alias fields`);
    if (!column.nullable && column.default.kind === 'none') {
      // Rows already there would hold null in the new column.
      plan.check({
        query: { count: 'rows', table: collection },
        atMost: 0,
        refusal: { kind: 'containsNulls', collection, field: input.field },
      });
    }
    if (column.unique && column.default.kind !== 'none') {
      plan.check({
        query: { count: 'rows', table: collection },
        atMost: 1,
        refusal: {
          kind: 'invalid',
          message: `Field "${input.field}" can't be unique: every row of collection "${collection}" would hold its default`,
        },
      });
    }
    plan.alter({ kind: 'addColumn', table: collection, column });
  }
  if (metaRow) plan.write({ kind: 'insertRow', table: 'service_fields', row: metaRow });
}

/** Changes a field's type, schema attributes and meta; attributes that stay as they are cause no DDL. */
export function planFieldUpdate(
  plan: SchemaChangePlan,
  ctx: PlanContext,
  collection: string,
  field: FieldOverview,
  input: FieldInput,
): void {
  const name = field.field;
  const newType = input.type ?? field.type;
  if (field.schema) {
    const { target, changes, conversion } = alterColumn(collection, field, input, ctx.ddl);
    if (changes.nullable && !target.nullable) {
      plan.check({
        query: { count: 'nulls', table: collection, column: name },
        atMost: 0,
        refusal: { kind: 'containsNulls', collection, field: name },
      });
    }
    if (changes.type && conversion !== null && conversion !== 'none') {
      plan.check({
        query: { count: 'lossy', table: collection, column: name, conversion, target },
        atMost: 0,
        refusal: {
          kind: 'counted',
          before: `Field "${name}" in collection "${collection}" can't be changed from ${describe(field)} to ${describeTarget(newType, target)}: `,
          after: ' value(s) would not survive the change',
        },
      });
    }
    if (changes.unique && target.unique) {
      plan.check({
        query: { count: 'duplicates', table: collection, column: name },
        atMost: 0,
        refusal: {
          kind: 'invalid',
          message: `Field "${name}" in collection "${collection}" holds duplicate values and can't be made unique`,
        },
      });
    }
    if (hasChanges(changes)) {
      const keys = keysOf(ctx.schema, collection, name);
      plan.alter({ kind: 'alterColumn', table: collection, current: field.schema!, target, changes, conversion, keys });
    }
  } else {
    if (newType !== 'alias')
      throw new InvalidPayloadError(`Field "${name}" is an alias field and can't become ${newType}`);
    if (input.schema && Object.keys(input.schema).length > 0)
      throw new InvalidPayloadError(`Field "${name}" is an alias field and has no schema`);
  }

  const currentSpecial = field.meta?.special ?? null;
  const given = input.meta?.special !== undefined;
  const special = specialFor(newType, given ? (input.meta!.special ?? null) : currentSpecial, ctx.ddl.nativeUuid, {
    inherited: !given && newType !== field.type,
    aliasSpecial: input.aliasSpecial,
  });
  const specialChanged = JSON.stringify(special ?? []) !== JSON.stringify(currentSpecial ?? []);
  const row = fieldMetaRow({
    ...(input.meta ?? {}),
    ...(specialChanged || input.meta?.special !== undefined ? { special } : {}),
  });
  if (Object.keys(row).length === 0) return;
  if (field.meta)
    plan.write({ kind: 'updateRows', table: 'service_fields', where: { collection, field: name }, set: row });
  else plan.write({ kind: 'insertRow', table: 'service_fields', row: { collection, field: name, ...row } });
}

function describe(field: FieldOverview): string {
  const c = field.schema!;
  if (field.type === 'string' && c.max_length !== null) return `string(${c.max_length})`;
  if (field.type === 'decimal' && c.numeric_precision !== null)
    return `decimal(${c.numeric_precision}, ${c.numeric_scale ?? 0})`;
  return field.type;
}

function describeTarget(type: string, spec: ColumnSpec): string {
  if (spec.type === 'string' && type === 'string') return `string(${spec.maxLength})`;
  if (spec.type === 'decimal') return `decimal(${spec.precision}, ${spec.scale})`;
  return type;
}

/** Everything a delete already took care of, so that cascading deletes do not repeat a step. */
export interface DeleteState {
  /** `collection\0field` of fields already planned for deletion. */
  fields: Set<string>;
  /** Collections whose table is being dropped as a whole (their columns need no drop of their own). */
  droppedTables: Set<string>;
}

export function newDeleteState(): DeleteState {
  return { fields: new Set(), droppedTables: new Set() };
}

/**
 * Deletes a field: its column and data, its meta, the relation it holds (and that relation's o2m alias field on
 * the other side), its name in o2m relations and permissions, and the collection settings that name it.
 */
export function planFieldDelete(
  plan: SchemaChangePlan,
  ctx: PlanContext,
  collection: string,
  name: string,
  state: DeleteState,
): void {
  const key = `${collection}\u0000${name}`;
  if (state.fields.has(key)) return;
  state.fields.add(key);
  const field = ctx.schema.collections[collection]?.fields[name];
  if (!field) return;
  if (field.primaryKey && !state.droppedTables.has(collection)) {
    throw new InvalidPayloadError(
      `Field "${name}" is the primary key of collection "${collection}" and can't be deleted`,
    );
  }

  for (const relation of ctx.schema.relations) {
    if (relation.collection === collection && relation.field === name) {
      // The field holds this relation (m2o, a2o or a bare foreign key): the relation goes, and so does its o2m side.
      plan.write({
        kind: 'deleteRows',
        table: 'service_relations',
        where: { many_collection: collection, many_field: name },
      });
      plan.write({
        kind: 'updateRows',
        table: 'service_relations',
        where: { many_collection: collection, junction_field: name },
        set: { junction_field: null },
      });
      if (relation.related_collection && relation.meta?.one_field)
        planFieldDelete(plan, ctx, relation.related_collection, relation.meta.one_field, state);
    } else if (relation.related_collection === collection && relation.meta?.one_field === name) {
      // The field is the o2m side of a relation held elsewhere: that relation stays, without it.
      plan.write({
        kind: 'updateRows',
        table: 'service_relations',
        where: { many_collection: relation.collection, many_field: relation.field },
        set: { one_field: null },
      });
    }
  }

  if (field.schema && !state.droppedTables.has(collection)) {
    const keys = keysOf(ctx.schema, collection, name);
    plan.alter({ kind: 'dropColumn', table: collection, column: name, keys });
  }

  plan.permissionsTouched = true;
  plan.write({ kind: 'deleteRows', table: 'service_fields', where: { collection, field: name } });
  plan.write({ kind: 'updateRows', table: 'service_fields', where: { collection, group: name }, set: { group: null } });
  plan.write({
    kind: 'updateRows',
    table: 'service_collections',
    where: { collection, archive_field: name },
    set: { archive_field: null },
  });
  plan.write({
    kind: 'updateRows',
    table: 'service_collections',
    where: { collection, sort_field: name },
    set: { sort_field: null },
  });
  plan.write({
    kind: 'updateRows',
    table: 'service_relations',
    where: { many_collection: collection, sort_field: name },
    set: { sort_field: null },
  });
  plan.write({ kind: 'dropPermissionField', collection, field: name });
}
