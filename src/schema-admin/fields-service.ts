/**
 * /fields: list and read field objects; create, change and delete fields (Directus docs: Fields). Every change goes
 * through SchemaChanges (one at a time, atomic where the database allows, schema reloaded after).
 */
import { collectionForbidden, fieldForbidden } from '../errors/catalogue.js';
import type { SchemaDdl } from '../db/schema-ddl.js';
import type { Accountability } from '../permissions/accountability.js';
import { parseFieldBatch, parseFieldCreate, parseFieldUpdate } from './input/field-input.js';
import type { SchemaOverview } from '../schema/types.js';
import {
  newDeleteState,
  planFieldCreate,
  planFieldDelete,
  planFieldUpdate,
  type PlanContext,
} from './plan/field-plans.js';
import { SchemaChangePlan, type SchemaChanges } from './schema-changes.js';
import { collectionFields, fieldObject, type FieldObject } from './schema-objects.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import {
  existingCollection,
  requireAdmin,
  fieldsWritableCollection,
  schemaVisibility,
  writableField,
  type SchemaVisibility,
} from './schema-access.js';

export interface FieldsServiceDeps {
  schema: () => SchemaOverview;
  permissions: PermissionStore;
  changes: SchemaChanges;
  ddl: SchemaDdl;
}

export class FieldsService {
  constructor(private readonly deps: FieldsServiceDeps) {}

  /** Every field for admins; for others the fields of their read field sets (schema-access.ts). */
  async readAll(accountability: Accountability): Promise<FieldObject[]> {
    const schema = this.deps.schema();
    const visible = await this.visibility(accountability, schema);
    return Object.keys(schema.collections)
      .filter((name) => visible.collection(name))
      .sort()
      .flatMap((name) => this.visibleFields(visible, schema.collections[name]!.collection));
  }

  async readCollection(accountability: Accountability, collection: string): Promise<FieldObject[]> {
    const schema = this.deps.schema();
    const visible = await this.visibility(accountability, schema);
    if (!visible.collection(collection)) throw collectionForbidden(collection);
    return this.visibleFields(visible, collection);
  }

  async readOne(accountability: Accountability, collection: string, field: string): Promise<FieldObject> {
    const schema = this.deps.schema();
    const visible = await this.visibility(accountability, schema);
    if (!visible.collection(collection) || !visible.field(collection, field)) throw fieldForbidden(field, collection);
    return this.describe(collection, field);
  }

  private visibility(accountability: Accountability, schema: SchemaOverview): Promise<SchemaVisibility> {
    return schemaVisibility(accountability, this.deps.permissions, schema, 'service_fields');
  }

  private visibleFields(visible: SchemaVisibility, collection: string): FieldObject[] {
    return collectionFields(existingCollection(this.deps.schema(), collection)).filter((f) =>
      visible.field(collection, f.field),
    );
  }

  private describe(collection: string, field: string): FieldObject {
    const found = existingCollection(this.deps.schema(), collection).fields[field];
    if (!found) throw fieldForbidden(field, collection);
    return fieldObject(collection, found);
  }

  async create(accountability: Accountability, collection: string, body: unknown): Promise<FieldObject> {
    requireAdmin(accountability);
    const input = parseFieldCreate(body, collection);
    await this.deps.changes.run((schema) => {
      fieldsWritableCollection(schema, collection);
      const plan = new SchemaChangePlan(`Field "${input.field}" could not be added to collection "${collection}"`);
      planFieldCreate(plan, this.context(schema), collection, input);
      return { plan, result: undefined };
    });
    return this.describe(collection, input.field);
  }

  async update(accountability: Accountability, collection: string, field: string, body: unknown): Promise<FieldObject> {
    requireAdmin(accountability);
    const input = parseFieldUpdate(body, collection, field);
    await this.deps.changes.run((schema) => {
      const found = writableField(schema, collection, field);
      const plan = new SchemaChangePlan(`Field "${field}" in collection "${collection}" could not be changed`);
      planFieldUpdate(plan, this.context(schema), collection, found, input);
      return { plan, result: undefined };
    });
    return this.describe(collection, field);
  }

  /** PATCH /fields/{c} with an array: every field changes, or none. */
  async updateMany(accountability: Accountability, collection: string, body: unknown): Promise<FieldObject[]> {
    requireAdmin(accountability);
    const inputs = parseFieldBatch(body, collection);
    await this.deps.changes.run((schema) => {
      const plan = new SchemaChangePlan(`Fields of collection "${collection}" could not be changed`);
      for (const input of inputs) {
        const found = writableField(schema, collection, input.field);
        planFieldUpdate(plan, this.context(schema), collection, found, input);
      }
      return { plan, result: undefined };
    });
    return inputs.map((input) => this.describe(collection, input.field));
  }

  async delete(accountability: Accountability, collection: string, field: string): Promise<void> {
    requireAdmin(accountability);
    await this.deps.changes.run((schema) => {
      writableField(schema, collection, field);
      const plan = new SchemaChangePlan(`Field "${field}" could not be deleted from collection "${collection}"`);
      planFieldDelete(plan, this.context(schema), collection, field, newDeleteState());
      return { plan, result: undefined };
    });
  }

  private context(schema: SchemaOverview): PlanContext {
    return { schema, ddl: this.deps.ddl };
  }
}
