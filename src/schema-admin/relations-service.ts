/**
 * /relations: list and read relations; create one (its service_relations row and, unless `schema` is null, the
 * foreign key with its actions), change its meta or foreign key, delete it with its foreign key (Directus docs: Relations,
 * API reference). m2m and m2a are built the Directus way: a junction collection with two relations.
 */
import { constraintName } from '../db/ddl-names.js';
import type { SchemaDdl } from '../db/schema-ddl.js';
import { storageOfField } from './plan/type-conversions.js';
import { collectionForbidden, ForbiddenError, InvalidPayloadError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import {
  parseRelationCreate,
  parseRelationUpdate,
  type RelationInput,
  type RelationMetaInput,
} from './input/relation-input.js';
import type { FieldOverview, ForeignKeyInfo, RelationOverview, SchemaOverview } from '../schema/types.js';
import { relationMetaRow } from './plan/meta-rows.js';
import { SchemaChangePlan, type SchemaChanges } from './schema-changes.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import { existingCollection, relationVisible, requireAdmin, schemaVisibility } from './schema-access.js';
import { relationObject } from './schema-objects.js';

export interface RelationsServiceDeps {
  schema: () => SchemaOverview;
  permissions: PermissionStore;
  changes: SchemaChanges;
  ddl: SchemaDdl;
}

function relationForbidden(collection: string, field: string): ForbiddenError {
  return new ForbiddenError(
    `You don't have permission to access relation "${collection}.${field}" or it does not exist.`,
  );
}

export class RelationsService {
  constructor(private readonly deps: RelationsServiceDeps) {}

  /** Every relation for admins; for others those whose ends they may all read (schema-access.ts). */
  async readAll(accountability: Accountability): Promise<RelationOverview[]> {
    const schema = this.deps.schema();
    const visible = await schemaVisibility(accountability, this.deps.permissions, schema, 'service_relations');
    return schema.relations.filter((r) => relationVisible(visible, r)).map(relationObject);
  }

  /** The relations held by the collection (it is their "many" side). */
  async readCollection(accountability: Accountability, collection: string): Promise<RelationOverview[]> {
    const schema = this.deps.schema();
    const visible = await schemaVisibility(accountability, this.deps.permissions, schema, 'service_relations');
    existingCollection(schema, collection);
    if (!visible.collection(collection)) throw collectionForbidden(collection);
    return schema.relations
      .filter((r) => r.collection === collection && relationVisible(visible, r))
      .map(relationObject);
  }

  async readOne(accountability: Accountability, collection: string, field: string): Promise<RelationOverview> {
    const schema = this.deps.schema();
    const visible = await schemaVisibility(accountability, this.deps.permissions, schema, 'service_relations');
    const relation = schema.relations.find((r) => r.collection === collection && r.field === field);
    if (!relation || !relationVisible(visible, relation)) throw relationForbidden(collection, field);
    return relationObject(relation);
  }

  private describe(collection: string, field: string): RelationOverview {
    const relation = this.deps.schema().relations.find((r) => r.collection === collection && r.field === field);
    if (!relation) throw relationForbidden(collection, field);
    return relationObject(relation);
  }

  async create(accountability: Accountability, body: unknown): Promise<RelationOverview> {
    requireAdmin(accountability);
    const input = parseRelationCreate(body);
    await this.deps.changes.run((schema) => {
      const { collection, field } = input;
      const many = schema.collections[collection];
      if (!many?.schema) throw new InvalidPayloadError(`Collection "${collection}" doesn't exist`);
      if (many.system)
        throw new ForbiddenError(`Collection "${collection}" is a system collection and can't be changed`);
      const column = many.fields[field];
      if (!column) throw new InvalidPayloadError(`Field "${field}" doesn't exist in collection "${collection}"`);
      if (!column.schema)
        throw new InvalidPayloadError(
          `Field "${field}" in collection "${collection}" is an alias field and can't hold a relation`,
        );
      if (schema.relations.some((r) => r.collection === collection && r.field === field)) {
        throw new InvalidPayloadError(
          `Field "${field}" in collection "${collection}" already has an associated relationship`,
        );
      }
      const related = input.related_collection ?? null;
      this.checkMeta(schema, input, related, input.meta ?? {});

      const plan = new SchemaChangePlan(`Relation "${collection}.${field}" could not be created`);
      if (related && input.schema !== null) this.planForeignKey(plan, schema, column, collection, related, input);
      const row = {
        many_collection: collection,
        many_field: field,
        one_collection: related,
        ...relationMetaRow(input.meta ?? {}),
      };
      plan.write({ kind: 'insertRow', table: 'service_relations', row });
      return { plan, result: undefined };
    });
    return this.describe(input.collection, input.field);
  }

  async update(
    accountability: Accountability,
    collection: string,
    field: string,
    body: unknown,
  ): Promise<RelationOverview> {
    requireAdmin(accountability);
    const input = parseRelationUpdate(body, collection, field);
    await this.deps.changes.run((schema) => {
      const relation = schema.relations.find((r) => r.collection === collection && r.field === field);
      if (!relation) throw relationForbidden(collection, field);
      if (schema.collections[collection]?.system)
        throw new ForbiddenError(`Collection "${collection}" is a system collection and can't be changed`);
      if (input.related_collection !== undefined && input.related_collection !== relation.related_collection) {
        throw new InvalidPayloadError(`The related collection of relation "${collection}.${field}" can't be changed`);
      }
      const related = relation.related_collection;
      const plan = new SchemaChangePlan(`Relation "${collection}.${field}" could not be changed`);
      if (input.meta) {
        const merged: RelationMetaInput = { ...(relation.meta ?? {}), ...input.meta } as RelationMetaInput;
        this.checkMeta(schema, input, related, merged);
        const row = relationMetaRow(input.meta);
        if (relation.meta) {
          if (Object.keys(row).length)
            plan.write({
              kind: 'updateRows',
              table: 'service_relations',
              where: { many_collection: collection, many_field: field },
              set: row,
            });
        } else {
          plan.write({
            kind: 'insertRow',
            table: 'service_relations',
            row: { many_collection: collection, many_field: field, one_collection: related, ...row },
          });
        }
      }
      const key = relation.schema;
      if (input.schema === null && key) {
        plan.alter({ kind: 'dropForeignKey', key });
      } else if (input.schema && related) {
        const wanted = {
          on_delete: input.schema.on_delete ?? key?.on_delete ?? 'NO ACTION',
          on_update: input.schema.on_update ?? key?.on_update ?? null,
        };
        if (!key) {
          this.planForeignKey(plan, schema, schema.collections[collection]!.fields[field]!, collection, related, input);
        } else if (
          wanted.on_delete !== key.on_delete ||
          (input.schema.on_update !== undefined && wanted.on_update !== key.on_update)
        ) {
          // The key is replaced: dropped, then added with the new actions (a failure puts the old one back).
          plan.alter({ kind: 'dropForeignKey', key });
          plan.alter({ kind: 'addForeignKey', key: { ...key, ...wanted } });
        }
      }
      return { plan, result: undefined };
    });
    return this.describe(collection, field);
  }

  async delete(accountability: Accountability, collection: string, field: string): Promise<void> {
    requireAdmin(accountability);
    await this.deps.changes.run((schema) => {
      const relation = schema.relations.find((r) => r.collection === collection && r.field === field);
      if (!relation) throw relationForbidden(collection, field);
      if (schema.collections[collection]?.system)
        throw new ForbiddenError(`Collection "${collection}" is a system collection and can't be changed`);
      const plan = new SchemaChangePlan(`Relation "${collection}.${field}" could not be deleted`);
      const key = relation.schema;
      if (key) plan.alter({ kind: 'dropForeignKey', key });
      plan.write({
        kind: 'deleteRows',
        table: 'service_relations',
        where: { many_collection: collection, many_field: field },
      });
      return { plan, result: undefined };
    });
  }

  /** The foreign key of an m2o relation: checked against the data first, so a refusal names the reason. */
  private planForeignKey(
    plan: SchemaChangePlan,
    schema: SchemaOverview,
    column: FieldOverview,
    collection: string,
    related: string,
    input: RelationInput,
  ): void {
    const one = schema.collections[related]!;
    if (one.keyFields.length > 1) {
      // A foreign key to it would need all of its columns: relations of several columns are not supported yet.
      throw new InvalidPayloadError(
        `Collection "${related}" has a composite primary key (${one.keyFields.join(', ')}); relations to it are not supported`,
      );
    }
    const target = one.primary ? one.fields[one.primary] : undefined;
    if (!target?.schema) throw new InvalidPayloadError(`Collection "${related}" has no primary key to relate to`);
    const from = storageOfField(column.type, column.schema!.max_length);
    const to = storageOfField(target.type, target.schema.max_length);
    const integers = ['integer', 'bigInteger'];
    if (!from || !to || (from !== to && !(integers.includes(from) && integers.includes(to)))) {
      throw new InvalidPayloadError(
        `Field "${input.field}" in collection "${collection}" (${column.type}) can't reference "${related}.${target.field}" (${target.type})`,
      );
    }
    const key: ForeignKeyInfo = {
      table: collection,
      column: input.field,
      foreign_key_table: related,
      foreign_key_column: target.field,
      constraint_name: constraintName(collection, input.field, 'foreign'),
      on_delete: input.schema?.on_delete ?? 'NO ACTION',
      on_update: input.schema?.on_update ?? null,
    };
    if (key.on_delete === 'SET NULL' && !column.nullable) {
      throw new InvalidPayloadError(
        `Field "${input.field}" in collection "${collection}" is not nullable: "on_delete" can't be SET NULL`,
      );
    }
    plan.check({
      query: {
        count: 'orphans',
        table: collection,
        column: input.field,
        foreignTable: related,
        foreignColumn: target.field,
      },
      atMost: 0,
      refusal: {
        kind: 'counted',
        before: `Field "${input.field}" in collection "${collection}" holds `,
        after: ` value(s) that are not keys of collection "${related}"`,
      },
    });
    plan.alter({ kind: 'addForeignKey', key });
  }

  /** The fields and collections a relation's meta names must exist (an o2m `one_field` may be created later). */
  private checkMeta(
    schema: SchemaOverview,
    input: RelationInput,
    related: string | null,
    meta: RelationMetaInput,
  ): void {
    const many = schema.collections[input.collection]!;
    if (related !== null) {
      const one = schema.collections[related];
      if (!one?.schema) throw new InvalidPayloadError(`Related collection "${related}" doesn't exist`);
      if (meta.one_field) {
        const existing = one.fields[meta.one_field];
        if (existing?.schema)
          throw new InvalidPayloadError(
            `Field "${meta.one_field}" in collection "${related}" has a column and can't be the o2m side of a relation`,
          );
      }
    } else {
      if (!meta.one_collection_field)
        throw new InvalidPayloadError(
          `A relation without "related_collection" (many-to-any) needs "meta.one_collection_field"`,
        );
      for (const name of meta.one_allowed_collections ?? []) {
        if (!schema.collections[name]?.schema)
          throw new InvalidPayloadError(`Collection "${name}" in "meta.one_allowed_collections" doesn't exist`);
      }
    }
    for (const key of ['one_collection_field', 'junction_field', 'sort_field'] as const) {
      const name = meta[key];
      if (name && !many.fields[name]?.schema)
        throw new InvalidPayloadError(
          `Field "${name}" ("meta.${key}") doesn't exist in collection "${input.collection}"`,
        );
    }
  }
}
