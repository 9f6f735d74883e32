/**
 * /collections: list and read collection objects; create a collection (table, fields and metadata at once, or a
 * folder without a table), change its meta, delete it with everything that names it (Directus docs: Collections).
 */
import type { SchemaDdl } from '../db/schema-ddl.js';
import { collectionForbidden, InvalidPayloadError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import {
  parseCollectionBatchItem,
  parseCollectionCreate,
  parseCollectionKeysAndData,
  parseCollectionUpdate,
  type CollectionInput,
  type CollectionMetaInput,
} from './input/collection-input.js';
import type { FieldInput } from './input/field-input.js';
import type { SchemaOverview } from '../schema/types.js';
import { fieldCreation, newDeleteState, planFieldDelete, type PlanContext } from './plan/field-plans.js';
import { withoutListItem } from '../db/list-items.js';
import { collectionMetaRow } from './plan/meta-rows.js';
import { SchemaChangePlan, type SchemaChanges } from './schema-changes.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import { existingCollection, requireAdmin, schemaVisibility, writableCollection } from './schema-access.js';
import { collectionObject, type CollectionObject } from './schema-objects.js';

export interface CollectionsServiceDeps {
  schema: () => SchemaOverview;
  permissions: PermissionStore;
  changes: SchemaChanges;
  ddl: SchemaDdl;
}

/** Directus's key for a collection created without fields (Directus docs: Collections). */
const DEFAULT_KEY: FieldInput = {
  field: 'id',
  type: 'integer',
  meta: { hidden: true, interface: 'numeric', readonly: true },
  schema: { is_primary_key: true, has_auto_increment: true },
};

export class CollectionsService {
  constructor(private readonly deps: CollectionsServiceDeps) {}

  /** Every collection for admins; for others those they may read (schema-access.ts). */
  async readAll(accountability: Accountability): Promise<CollectionObject[]> {
    const schema = this.deps.schema();
    const visible = await schemaVisibility(accountability, this.deps.permissions, schema, 'service_collections');
    return Object.keys(schema.collections)
      .filter((name) => visible.collection(name))
      .sort()
      .map((name) => collectionObject(schema.collections[name]!));
  }

  async readOne(accountability: Accountability, collection: string): Promise<CollectionObject> {
    const schema = this.deps.schema();
    const visible = await schemaVisibility(accountability, this.deps.permissions, schema, 'service_collections');
    if (!visible.collection(collection)) throw collectionForbidden(collection);
    return this.describe(collection);
  }

  private describe(collection: string): CollectionObject {
    return collectionObject(existingCollection(this.deps.schema(), collection));
  }

  async create(accountability: Accountability, body: unknown): Promise<CollectionObject> {
    requireAdmin(accountability);
    const input = parseCollectionCreate(body);
    await this.createAll([input], `Collection "${input.collection}" could not be created`);
    return this.describe(input.collection);
  }

  /** POST /collections: one collection object, or an array of them (createMany). */
  createOneOrMany(accountability: Accountability, body: unknown): Promise<CollectionObject | CollectionObject[]> {
    return Array.isArray(body) ? this.createMany(accountability, body) : this.create(accountability, body);
  }

  /**
   * POST /collections with an array (Directus's createMany): every collection is created, or none — one transaction
   * where DDL is transactional, the tables already made undone on MySQL/MariaDB (schema-changes.ts).
   */
  async createMany(accountability: Accountability, body: unknown[]): Promise<CollectionObject[]> {
    requireAdmin(accountability);
    const inputs = body.map((item) => parseCollectionCreate(item));
    if (inputs.length) await this.createAll(inputs, 'Collections could not be created');
    return inputs.map((input) => this.describe(input.collection));
  }

  private async createAll(inputs: CollectionInput[], failure: string): Promise<void> {
    await this.deps.changes.run((schema) => {
      const taken = new Set(Object.keys(schema.collections).map((name) => name.toLowerCase()));
      const plan = new SchemaChangePlan(failure);
      for (const input of inputs) {
        const name = input.collection;
        if (taken.has(name.toLowerCase())) throw new InvalidPayloadError(`Collection "${name}" already exists`);
        taken.add(name.toLowerCase());
        this.planCreate(plan, { schema, ddl: this.deps.ddl }, input);
      }
      return { plan, result: undefined };
    });
  }

  private planCreate(plan: SchemaChangePlan, ctx: PlanContext, input: CollectionInput): void {
    const name = input.collection;
    // No schema and no fields: a folder, which is its metadata row alone.
    const folder = input.schema === null || (input.schema === undefined && input.fields === undefined);
    if (!folder) return this.planTable(plan, ctx, input);
    if (input.fields?.length)
      throw new InvalidPayloadError(`Collection "${name}" is a folder (schema null) and can't have fields`);
    plan.write({
      kind: 'insertRow',
      table: 'service_collections',
      row: { collection: name, ...collectionMetaRow(input.meta ?? {}) },
    });
  }

  private planTable(plan: SchemaChangePlan, ctx: PlanContext, input: CollectionInput): void {
    const name = input.collection;
    let fields = input.fields ?? [];
    // Strata relies on a primary key; a collection sent without one gets Directus's auto-increment `id`.
    if (!fields.some((f) => f.schema?.is_primary_key === true)) {
      if (fields.some((f) => f.field === 'id'))
        throw new InvalidPayloadError(
          `Collection "${name}" needs a primary key: mark a field with "schema.is_primary_key"`,
        );
      fields = [DEFAULT_KEY, ...fields];
    }
    const created = fields.map((field) => fieldCreation(ctx, name, field, true));
    const columns = created.flatMap((c) => (c.column ? [c.column] : []));
    plan.alter({ kind: 'createTable', table: name, columns });
    if (input.meta) {
      plan.write({
        kind: 'insertRow',
        table: 'service_collections',
        row: { collection: name, ...collectionMetaRow(input.meta) },
      });
    }
    const rows = created.flatMap((c) => (c.metaRow ? [c.metaRow] : []));
    // One insert per row: the rows set different columns, and a multi-row insert would null the others.
    for (const row of rows) plan.write({ kind: 'insertRow', table: 'service_fields', row });
  }

  async update(accountability: Accountability, collection: string, body: unknown): Promise<CollectionObject> {
    requireAdmin(accountability);
    const meta = parseCollectionUpdate(body, collection);
    await this.applyMeta([[collection, meta]]);
    return this.describe(collection);
  }

  /**
   * PATCH /collections with an array of `{collection, meta}` (what the app sends to sort and group collections), or
   * Directus's `{keys, data: {meta}}` (one change for several): all change, or none.
   */
  async updateMany(accountability: Accountability, body: unknown): Promise<CollectionObject[]> {
    requireAdmin(accountability);
    const items = Array.isArray(body) ? body : parseCollectionKeysAndData(body);
    const changes = items.map((item): [string, CollectionMetaInput | null | undefined] =>
      parseCollectionBatchItem(item),
    );
    await this.applyMeta(changes);
    return changes.map(([collection]) => this.describe(collection));
  }

  private async applyMeta(changes: [string, CollectionMetaInput | null | undefined][]): Promise<void> {
    await this.deps.changes.run((schema) => {
      const plan = new SchemaChangePlan('Collection settings could not be changed');
      for (const [collection, meta] of changes) {
        const target = writableCollection(schema, collection);
        if (!meta) continue;
        const row = collectionMetaRow(meta);
        if (target.meta) {
          if (Object.keys(row).length)
            plan.write({ kind: 'updateRows', table: 'service_collections', where: { collection }, set: row });
        } else {
          plan.write({ kind: 'insertRow', table: 'service_collections', row: { collection, ...row } });
        }
      }
      return { plan, result: undefined };
    });
  }

  /**
   * Drops the table and every reference to the collection: its fields' and its own metadata, its relations and
   * the fields of other collections that point at it (m2o columns, o2m alias fields), its place among a2o allowed
   * collections, its permissions, revisions and activity, and its children's group.
   */
  async delete(accountability: Accountability, collection: string): Promise<void> {
    requireAdmin(accountability);
    await this.deps.changes.run((schema) => {
      const target = writableCollection(schema, collection);
      const ctx: PlanContext = { schema, ddl: this.deps.ddl };
      const plan = new SchemaChangePlan(`Collection "${collection}" could not be deleted`);
      if (target.schema) {
        const state = newDeleteState();
        state.droppedTables.add(collection);
        for (const relation of schema.relations) {
          if (
            relation.collection === collection &&
            relation.related_collection &&
            relation.related_collection !== collection &&
            relation.meta?.one_field
          ) {
            planFieldDelete(plan, ctx, relation.related_collection, relation.meta.one_field, state);
          }
          if (relation.related_collection === collection && relation.collection !== collection) {
            const other = schema.collections[relation.collection]?.fields[relation.field];
            if (other?.primaryKey) {
              // A key column of another table stays; only its foreign key to this table goes.
              const key = relation.schema;
              if (key) plan.alter({ kind: 'dropForeignKey', key });
              plan.write({
                kind: 'deleteRows',
                table: 'service_relations',
                where: { many_collection: relation.collection, many_field: relation.field },
              });
            } else {
              planFieldDelete(plan, ctx, relation.collection, relation.field, state);
            }
          }
        }
        // Every key of another table that pointed here went above, with its column or on its own.
        plan.alter({ kind: 'dropTable', table: collection, keys: [] });
        plan.permissionsTouched = true;
        plan.write({ kind: 'deleteRows', table: 'service_fields', where: { collection } });
        plan.write({ kind: 'deleteRows', table: 'service_relations', where: { many_collection: collection } });
        plan.write({ kind: 'deleteRows', table: 'service_relations', where: { one_collection: collection } });
        plan.write({ kind: 'deleteRows', table: 'service_permissions', where: { collection } });
        plan.write({ kind: 'deleteRows', table: 'service_revisions', where: { collection } });
        plan.write({ kind: 'deleteRows', table: 'service_activity', where: { collection } });
        plan.write({ kind: 'deleteRows', table: 'service_versions', where: { collection } });
        plan.write({ kind: 'deleteRows', table: 'service_comments', where: { collection } });
        plan.write({ kind: 'deleteRows', table: 'service_notifications', where: { collection } });
        plan.write({ kind: 'deleteRows', table: 'service_presets', where: { collection } });
        for (const relation of schema.relations) {
          const allowed = relation.meta?.one_allowed_collections;
          if (!allowed?.includes(collection)) continue;
          plan.write({
            kind: 'updateRows',
            table: 'service_relations',
            where: { many_collection: relation.collection, many_field: relation.field },
            set: { one_allowed_collections: withoutListItem(allowed.join(','), collection) },
          });
        }
      }
      plan.write({ kind: 'deleteRows', table: 'service_collections', where: { collection } });
      plan.write({
        kind: 'updateRows',
        table: 'service_collections',
        where: { group: collection },
        set: { group: null },
      });
      return { plan, result: undefined };
    });
  }
}
