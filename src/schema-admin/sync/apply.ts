/**
 * A diff → the schema changes that make the current schema match the snapshot it came from, run through the same
 * services as /collections, /fields and /relations (their checks, DDL and metadata). Steps run in dependency
 * order: new collections (with their new fields), new and changed fields, collection settings, new and changed
 * relations, then removed relations, fields and collections. Where DDL is transactional (PostgreSQL, SQLite) all
 * steps run as one schema-change batch (one transaction, each step planned against the schema as the transaction
 * sees it): a failure leaves the schema as it was. On MySQL/MariaDB DDL commits on its own, so each step is
 * all-or-nothing by itself and a failure leaves the steps before it applied. Either way the error names the failing
 * step (`extensions.failed`) and lists the steps that stay applied (`extensions.applied`, empty after a rollback).
 */
import { InvalidPayloadError, ServiceError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { SchemaAdminApi } from '../../app/ports.js';
import { SchemaChangePlan } from '../schema-changes.js';
import { applyChange, type Change } from './changes.js';
import type { SchemaDiff } from './diff.js';
import type { Json, Snapshot, SnapshotField } from './snapshot.js';

export interface ApplyStep {
  /** What the step does, in words (`create collection "articles"`). */
  description: string;
  run(context: SchemaAdminApi, accountability: Accountability): Promise<unknown>;
}

type Target<T> = { kind: 'create'; item: T } | { kind: 'delete'; item: T } | { kind: 'update'; before: T; item: T };

function target<T extends object>(current: T | undefined, changes: Change[], what: string): Target<T> {
  const whole = changes.length === 1 && !changes[0]!.path?.length ? changes[0]! : null;
  if (whole?.kind === 'N') return { kind: 'create', item: whole.rhs as T };
  if (whole?.kind === 'D') {
    if (!current) throw new InvalidPayloadError(`The diff removes ${what}, which does not exist`);
    return { kind: 'delete', item: current };
  }
  if (!current) throw new InvalidPayloadError(`The diff changes ${what}, which does not exist`);
  const item = structuredClone(current) as T;
  for (const change of changes) applyChange(item as Record<string, unknown>, change);
  return { kind: 'update', before: current, item };
}

function fieldBody(field: SnapshotField, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { field: field.field, type: field.type, meta: field.meta };
  if (field.schema) {
    const {
      name: _n,
      table: _t,
      foreign_key_table: _ft,
      foreign_key_column: _fc,
      ...schema
    } = field.schema as Record<string, Json>;
    if (!creating) {
      delete schema.is_primary_key;
      delete schema.has_auto_increment;
    }
    body.schema = schema;
  } else body.schema = null;
  return body;
}

export function planApply(current: Snapshot, diff: SchemaDiff): ApplyStep[] {
  const collections = new Map(current.collections.map((c) => [c.collection, c]));
  const fields = new Map(current.fields.map((f) => [`${f.collection}.${f.field}`, f]));
  const relations = new Map(current.relations.map((r) => [`${r.collection}.${r.field}`, r]));

  const collectionTargets = diff.collections.map((e) =>
    target(collections.get(e.collection), e.diff, `collection "${e.collection}"`),
  );
  const fieldTargets = diff.fields.map((e) =>
    target(fields.get(`${e.collection}.${e.field}`), e.diff, `field "${e.collection}.${e.field}"`),
  );
  const relationTargets = diff.relations.map((e) =>
    target(relations.get(`${e.collection}.${e.field}`), e.diff, `relation "${e.collection}.${e.field}"`),
  );
  const created = new Set(collectionTargets.filter((t) => t.kind === 'create').map((t) => t.item.collection));
  const deleted = new Set(collectionTargets.filter((t) => t.kind === 'delete').map((t) => t.item.collection));

  return [
    ...createCollectionSteps(collectionTargets, fieldTargets),
    ...fieldSteps(fieldTargets, created),
    ...collectionSettingSteps(collectionTargets),
    ...relationSteps(relationTargets),
    ...deleteSteps(collectionTargets, fieldTargets, relationTargets, deleted),
  ];
}

type CollectionTarget = Target<Snapshot['collections'][number]>;
type FieldTarget = Target<SnapshotField>;
type RelationTarget = Target<Snapshot['relations'][number]>;

/**
 * An o2m field without metadata is no row of its own: the relation that names it makes it (creating it would add a
 * metadata row the snapshot does not have).
 */
const madeByRelation = (field: SnapshotField) => field.type === 'alias' && field.meta === null;

const isKey = (field: SnapshotField) => (field.schema as Record<string, Json> | null)?.is_primary_key === true;

/** New collections, each with its new fields: in the snapshot's order, keys first. */
function createCollectionSteps(collectionTargets: CollectionTarget[], fieldTargets: FieldTarget[]): ApplyStep[] {
  const steps: ApplyStep[] = [];
  for (const t of collectionTargets) {
    if (t.kind !== 'create') continue;
    const { collection, meta, schema } = t.item;
    const created = fieldTargets
      .filter((f) => f.kind === 'create' && f.item.collection === collection && !madeByRelation(f.item))
      .map((f) => f.item);
    const own = [...created.filter(isKey), ...created.filter((f) => !isKey(f))].map((f) => fieldBody(f, true));
    steps.push({
      description: `create collection "${collection}"${schema ? ` with ${own.length} field${own.length === 1 ? '' : 's'}` : ' (folder)'}`,
      run: (ctx, acc) =>
        ctx.collections.create(acc, {
          collection,
          meta,
          schema: schema ? { name: collection } : null,
          ...(schema ? { fields: own } : {}),
        }),
    });
  }
  return steps;
}

/** New fields of existing collections, and changed fields. */
function fieldSteps(fieldTargets: FieldTarget[], created: Set<string>): ApplyStep[] {
  const steps: ApplyStep[] = [];
  for (const t of fieldTargets) {
    const { collection, field } = t.item;
    if (t.kind === 'create' && !created.has(collection) && !madeByRelation(t.item)) {
      steps.push({
        description: `create field "${collection}.${field}" (${t.item.type})`,
        run: (ctx, acc) => ctx.fields.create(acc, collection, fieldBody(t.item, true)),
      });
    } else if (t.kind === 'update') {
      const dropMeta = t.item.meta === null && t.before.meta !== null;
      const body = fieldBody(t.item, false);
      if (dropMeta) delete body.meta;
      steps.push({
        description: `change field "${collection}.${field}"${dropMeta ? ' (removing its metadata)' : ''}`,
        run: async (ctx, acc) => {
          await ctx.fields.update(acc, collection, field, body);
          if (dropMeta) await dropMetaRow(ctx, 'service_fields', { collection, field });
        },
      });
    }
  }
  return steps;
}

function collectionSettingSteps(collectionTargets: CollectionTarget[]): ApplyStep[] {
  const steps: ApplyStep[] = [];
  for (const t of collectionTargets) {
    if (t.kind !== 'update') continue;
    const { collection, meta } = t.item;
    if (meta === null) {
      steps.push({
        description: `remove collection "${collection}" settings`,
        run: (ctx) => dropMetaRow(ctx, 'service_collections', { collection }),
      });
    } else
      steps.push({
        description: `change collection "${collection}" settings`,
        run: (ctx, acc) => ctx.collections.update(acc, collection, { meta }),
      });
  }
  return steps;
}

/** New and changed relations. */
function relationSteps(relationTargets: RelationTarget[]): ApplyStep[] {
  const steps: ApplyStep[] = [];
  for (const t of relationTargets) {
    const { collection, field, related_collection, meta, schema } = t.item;
    const body = {
      meta,
      schema: schema ? { on_delete: (schema as Record<string, Json>).on_delete ?? 'NO ACTION' } : null,
    };
    // A foreign key without metadata (meta null) stays without: its metadata row, if one was made, goes.
    const dropMeta = meta === null && (t.kind === 'create' || (t.kind === 'update' && t.before.meta !== null));
    const metaGone = (ctx: SchemaAdminApi) =>
      dropMeta
        ? dropMetaRow(ctx, 'service_relations', { many_collection: collection, many_field: field })
        : Promise.resolve();
    if (t.kind === 'create') {
      steps.push({
        description: `create relation "${collection}.${field}"${related_collection ? ` → "${related_collection}"` : ''}`,
        run: async (ctx, acc) => {
          await ctx.relations.create(acc, { collection, field, related_collection, ...body });
          await metaGone(ctx);
        },
      });
    } else if (t.kind === 'update') {
      steps.push({
        description: `change relation "${collection}.${field}"`,
        run: async (ctx, acc) => {
          await ctx.relations.update(acc, collection, field, { related_collection, ...body });
          await metaGone(ctx);
        },
      });
    }
  }
  return steps;
}

/** Removed relations, fields, then collections (what goes with a removed collection is not removed twice). */
function deleteSteps(
  collectionTargets: CollectionTarget[],
  fieldTargets: FieldTarget[],
  relationTargets: RelationTarget[],
  deleted: Set<string>,
): ApplyStep[] {
  const steps: ApplyStep[] = [];
  for (const t of relationTargets) {
    if (t.kind !== 'delete' || deleted.has(t.item.collection)) continue;
    const { collection, field } = t.item;
    steps.push({
      description: `delete relation "${collection}.${field}"`,
      run: (ctx, acc) => ctx.relations.delete(acc, collection, field),
    });
  }
  for (const t of fieldTargets) {
    // An o2m field without metadata goes with its relation's change (made above), as it came with it.
    if (t.kind !== 'delete' || deleted.has(t.item.collection) || madeByRelation(t.item)) continue;
    const { collection, field } = t.item;
    steps.push({
      description: `delete field "${collection}.${field}"`,
      run: (ctx, acc) => ctx.fields.delete(acc, collection, field),
    });
  }
  for (const t of collectionTargets) {
    if (t.kind !== 'delete') continue;
    const { collection } = t.item;
    steps.push({
      description: `delete collection "${collection}" and its data`,
      run: (ctx, acc) => ctx.collections.delete(acc, collection),
    });
  }
  return steps;
}

/** A metadata row the snapshot does not have (meta null): removed, as one schema change. */
async function dropMetaRow(
  context: SchemaAdminApi,
  table: 'service_fields' | 'service_collections' | 'service_relations',
  where: Record<string, string>,
): Promise<void> {
  await context.schemaChanges.run(() => {
    const plan = new SchemaChangePlan(`The metadata of "${Object.values(where).join('.')}" could not be removed`);
    plan.write({ kind: 'deleteRows', table, where });
    return { plan, result: undefined };
  });
}

/**
 * Runs the steps in order, as one batch; a failure answers its own error with `failed` (the step) and `applied` (the
 * steps that stay applied: none where the batch rolled back, the ones before it on MySQL/MariaDB).
 */
export async function runApply(
  steps: ApplyStep[],
  context: SchemaAdminApi,
  accountability: Accountability,
  onStep?: (step: ApplyStep) => void,
): Promise<string[]> {
  const atomic = context.db.dialect.ddl.transactional;
  return context.schemaChanges.batch(async () => {
    const applied: string[] = [];
    for (const step of steps) {
      try {
        await step.run(context, accountability);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        const kept = atomic ? [] : applied;
        const outcome = atomic
          ? `nothing was applied${applied.length ? ` (${applied.length} earlier step${applied.length === 1 ? '' : 's'} rolled back)` : ''}`
          : `${applied.length} step${applied.length === 1 ? '' : 's'} applied before`;
        throw new ServiceError(
          error.code,
          error.status,
          `${error.message} (while applying: ${step.description}; ${outcome})`,
          {
            ...error.extensions,
            applied: kept,
            failed: step.description,
          },
        );
      }
      applied.push(step.description);
      onStep?.(step);
    }
    return applied;
  });
}
