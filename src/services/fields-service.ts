/**
 * /fields: list and read field objects; create, change and delete fields (reference §5.3). Every change goes
 * through SchemaChanges (one at a time, atomic where the database allows, schema reloaded after).
 */
import { fieldForbidden, InvalidPayloadError } from '../errors/catalogue.js';
import type { SchemaDdl } from '../db/schema-ddl.js';
import type { Accountability } from '../permissions/accountability.js';
import { parseFieldBatchItem, parseFieldCreate, parseFieldUpdate } from '../schema/field-input.js';
import type { SchemaOverview } from '../schema/types.js';
import { newDeleteState, planFieldCreate, planFieldDelete, planFieldUpdate, type PlanContext } from './field-plans.js';
import { SchemaChangePlan, type SchemaChanges } from './schema-changes.js';
import { collectionFields, fieldObject, type FieldObject } from './schema-objects.js';
import { existingCollection, requireAdmin, writableCollection } from './schema-access.js';

export interface FieldsServiceDeps {
  schema: () => SchemaOverview;
  changes: SchemaChanges;
  ddl: SchemaDdl;
}

export class FieldsService {
  constructor(private readonly deps: FieldsServiceDeps) {}

  readAll(accountability: Accountability): FieldObject[] {
    requireAdmin(accountability);
    const schema = this.deps.schema();
    return Object.keys(schema.collections)
      .sort()
      .flatMap((name) => collectionFields(schema.collections[name]!));
  }

  readCollection(accountability: Accountability, collection: string): FieldObject[] {
    requireAdmin(accountability);
    return collectionFields(existingCollection(this.deps.schema(), collection));
  }

  readOne(accountability: Accountability, collection: string, field: string): FieldObject {
    requireAdmin(accountability);
    const found = existingCollection(this.deps.schema(), collection).fields[field];
    if (!found) throw fieldForbidden(field, collection);
    return fieldObject(collection, found);
  }

  async create(accountability: Accountability, collection: string, body: unknown): Promise<FieldObject> {
    requireAdmin(accountability);
    const input = parseFieldCreate(body, collection);
    await this.deps.changes.run((schema) => {
      writableCollection(schema, collection);
      const plan = new SchemaChangePlan(`Field "${input.field}" could not be added to collection "${collection}"`);
      planFieldCreate(plan, this.context(schema), collection, input);
      return { plan, result: undefined };
    });
    return this.readOne(accountability, collection, input.field);
  }

  async update(accountability: Accountability, collection: string, field: string, body: unknown): Promise<FieldObject> {
    requireAdmin(accountability);
    const input = parseFieldUpdate(body, collection, field);
    await this.deps.changes.run((schema) => {
      const found = writableCollection(schema, collection).fields[field];
      if (!found) throw fieldForbidden(field, collection);
      const plan = new SchemaChangePlan(`Field "${field}" in collection "${collection}" could not be changed`);
      planFieldUpdate(plan, this.context(schema), collection, found, input);
      return { plan, result: undefined };
    });
    return this.readOne(accountability, collection, field);
  }

  /** PATCH /fields/{c} with an array: every field changes, or none. */
  async updateMany(accountability: Accountability, collection: string, body: unknown): Promise<FieldObject[]> {
    requireAdmin(accountability);
    if (!Array.isArray(body)) throw new InvalidPayloadError('Submitted body has to be an array');
    const inputs = body.map((item) => parseFieldBatchItem(item, collection));
    await this.deps.changes.run((schema) => {
      const target = writableCollection(schema, collection);
      const plan = new SchemaChangePlan(`Fields of collection "${collection}" could not be changed`);
      for (const input of inputs) {
        const found = target.fields[input.field];
        if (!found) throw fieldForbidden(input.field, collection);
        planFieldUpdate(plan, this.context(schema), collection, found, input);
      }
      return { plan, result: undefined };
    });
    return inputs.map((input) => this.readOne(accountability, collection, input.field));
  }

  async delete(accountability: Accountability, collection: string, field: string): Promise<void> {
    requireAdmin(accountability);
    await this.deps.changes.run((schema) => {
      if (!writableCollection(schema, collection).fields[field]) throw fieldForbidden(field, collection);
      const plan = new SchemaChangePlan(`Field "${field}" could not be deleted from collection "${collection}"`);
      planFieldDelete(plan, this.context(schema), collection, field, newDeleteState());
      return { plan, result: undefined };
    });
  }

  private context(schema: SchemaOverview): PlanContext {
    return { schema, ddl: this.deps.ddl };
  }
}
