/**
 * The lookup stage of a write, inside its transaction and before its plan is resolved (plan/write-resolution.ts):
 * everything the plan depends on that only the database knows, read in a few statements per collection — which
 * rows named by updates, upserts and bare-key links exist and satisfy the caller's update rule, a singleton's row,
 * the rows linked to existing parents whose relation a write replaces or removes from, and whether the caller's rule
 * for the deselect action holds on the rows that would get it. It writes nothing and plans nothing.
 */
import type { Executor } from '../../db/connection.js';
import type { Dialect } from '../../db/dialect.js';
import type { DeletePlan, FoundKeys, Key, MutationPlan, RowWrite, WriteLookups } from '../../plan/mutation-plan.js';
import { linkKey } from '../../plan/mutation-plan.js';
import type { PlannedFilter } from '../../plan/read-plan.js';
import { hasCompositeKey, keyFieldsOf, keyParts, parseKey } from '../../plan/row-key.js';
import { coerceKey } from '../../plan/value-coercion.js';
import type { WriteContext } from '../../plan/write-context.js';
import { childParentKey, deselected, draftKey, keptKeys } from '../../plan/write-resolution.js';
import type { CollectionOverview } from '../../schema/types.js';
import {
  compileChildLookups,
  compileFirstKey,
  compileGuardedKeyLookups,
  compileKeyLookups,
  type KeyColumns,
  type KeyValue,
  type WriteHooks,
} from '../../sql/write-compiler.js';

/** The column(s) rows of `collection` are addressed by: every column of a composite key. */
export function keyColumnsOf(collection: CollectionOverview): KeyColumns {
  return hasCompositeKey(collection) ? keyFieldsOf(collection) : keyFieldsOf(collection)[0]!;
}

/** Keys as the write compiler binds them: values, or tuples of a composite key's column values. */
export function keyValuesOf(collection: CollectionOverview, keys: readonly Key[]): KeyValue[] {
  return hasCompositeKey(collection) ? keys.map((key) => keyParts(collection, key)) : [...keys];
}

/** The key of a row a lookup returned (`key`, or `key0`, `key1`, ... for a composite key). */
export function keyOfLookup(collection: CollectionOverview, row: Record<string, unknown>): Key | null {
  if (!hasCompositeKey(collection)) return coerceKey(keyFieldsOf(collection)[0]!, row.key);
  return parseKey(collection, Object.fromEntries(collection.keyFields.map((name, i) => [name, row[`key${i}`]])));
}

/** Keys to look up per collection, each collection with one guard. */
class KeyRequests {
  readonly keys = new Map<string, { collection: CollectionOverview; keys: Map<string, Key> }>();

  add(collection: CollectionOverview, key: Key): void {
    const entry = this.keys.get(collection.collection) ?? { collection, keys: new Map<string, Key>() };
    entry.keys.set(String(key), key);
    this.keys.set(collection.collection, entry);
  }
}

/** The actions whose rules are guarded per row. */
type RowAction = 'update' | 'delete' | 'share';

export class WriteLookupStage {
  private readonly hooks: WriteHooks;

  constructor(
    private readonly tx: Executor,
    dialect: Dialect,
    private readonly ctx: WriteContext,
  ) {
    this.hooks = { sql: dialect.sql, write: dialect.write };
  }

  /** What the draft of an item write needs resolved; `singleton`: the draft is a singleton's write. */
  async forWrite(draft: MutationPlan, singleton = false): Promise<WriteLookups> {
    const updatable = new Map<string, Map<string, boolean>>();
    const deletable = new Map<string, Map<string, boolean>>();
    const linked = new Map<string, Key[]>();
    let singletonKey: Key | null | undefined;
    if (singleton) singletonKey = await this.firstKey(draft.collection);

    // Rows named by key, at every depth (a composite-key child completed by its parent's key when that is known).
    const named = new KeyRequests();
    const parents: { row: RowWrite; key: Key | null }[] = [];
    // A batch update's m2o object is one row under every key's row (plan/mutation-planner.ts): visited once.
    const seen = new Set<RowWrite>();
    const visit = (row: RowWrite, parentKey: Key | null, top: boolean) => {
      if (seen.has(row)) return;
      seen.add(row);
      const key = top && singletonKey !== undefined && singletonKey !== null ? singletonKey : draftKey(row, parentKey);
      if ((row.action === 'update' || row.action === 'upsert') && key !== null) named.add(row.collection, key);
      parents.push({ row, key });
      row.parents.forEach((parent) => visit(parent.row, null, false));
      for (const set of row.children) {
        set.assign.forEach((assigned) => named.add(set.related, assigned));
        const childParent = childParentKey(row, key, set.link.localField);
        [...set.rows, ...set.updates].forEach((child) => visit(child, childParent, false));
      }
    };
    draft.rows.forEach((row) => visit(row, null, true));
    await this.lookUp(named, 'update', updatable);

    // Rows linked now to parents that exist, where the write replaces the relation or removes from it.
    const byRelation = new Map<string, { related: CollectionOverview; fk: string; parents: Map<string, Key> }>();
    const sets: { set: RowWrite['children'][number]; parentKey: Key }[] = [];
    for (const { row, key } of parents) {
      const exists =
        row.action === 'update' ||
        (row.action === 'upsert' &&
          key !== null &&
          updatable.get(row.collection.collection)?.has(String(key)) === true);
      if (!exists) continue;
      for (const set of row.children) {
        if (!set.replace && set.remove.length === 0) continue;
        const parentKey = childParentKey(row, key, set.link.localField);
        if (parentKey === null) continue;
        const id = `${set.related.collection}\u0000${set.link.relatedField}`;
        const entry = byRelation.get(id) ?? {
          related: set.related,
          fk: set.link.relatedField,
          parents: new Map<string, Key>(),
        };
        entry.parents.set(String(parentKey), parentKey);
        byRelation.set(id, entry);
        sets.push({ set, parentKey });
      }
    }
    for (const { related, fk, parents: keys } of byRelation.values()) {
      const statements = compileChildLookups(
        related.schema!.name,
        keyColumnsOf(related),
        related.fields[fk]!,
        [...keys.values()],
        this.hooks,
      );
      for (const statement of statements) {
        for (const row of await this.tx.query(statement.sql, statement.params)) {
          const key = keyOfLookup(related, row);
          if (key === null) throw new Error(`A row of ${related.collection} has no key`);
          const id = linkKey(related.collection, fk, keys.get(String(row.parent)) ?? (row.parent as Key));
          linked.set(id, [...(linked.get(id) ?? []), key]);
        }
      }
    }

    // The caller's rule for the deselect action, on the rows that would get it.
    if (!this.ctx.accountability.admin && sets.length > 0) {
      const kept = keptKeys(draft.rows, singletonKey ?? null);
      const guarded = { update: new KeyRequests(), delete: new KeyRequests() };
      for (const { set, parentKey } of sets) {
        const action = set.link.deselectAction === 'delete' ? 'delete' : 'update';
        const rows = deselected(
          set,
          linked.get(linkKey(set.related.collection, set.link.relatedField, parentKey)) ?? [],
          kept,
        );
        if (!this.ctx.access?.rules(set.related, action)?.filter) continue;
        for (const key of rows)
          if (action === 'delete' || !updatable.get(set.related.collection)?.has(String(key)))
            guarded[action].add(set.related, key);
      }
      await this.lookUp(guarded.update, 'update', updatable);
      await this.lookUp(guarded.delete, 'delete', deletable);
    }
    return { updatable, deletable, linked, ...(singleton ? { singleton: singletonKey } : {}) };
  }

  /** The rows a delete names, under the caller's delete rule. */
  async forDelete(plan: DeletePlan): Promise<WriteLookups> {
    const requests = new KeyRequests();
    plan.keys.forEach((key) => requests.add(plan.collection, key));
    const deletable = new Map<string, Map<string, boolean>>();
    await this.lookUp(requests, 'delete', deletable);
    return { updatable: new Map(), deletable, linked: new Map() };
  }

  /** The key of `collection`'s first row (a singleton's one row); null when it has none. */
  async firstKey(collection: CollectionOverview): Promise<Key | null> {
    const { sql, params } = compileFirstKey(collection.schema!.name, keyColumnsOf(collection), this.hooks);
    const [row] = await this.tx.query(sql, params);
    return row ? keyOfLookup(collection, row) : null;
  }

  /** Which of `keys` of `collection` exist, each with whether the caller's rule for `action` holds on it. */
  async allowed(
    collection: CollectionOverview,
    keys: readonly Key[],
    action: RowAction,
  ): Promise<Map<string, boolean>> {
    const requests = new KeyRequests();
    keys.forEach((key) => requests.add(collection, key));
    const into = new Map<string, Map<string, boolean>>();
    await this.lookUp(requests, action, into);
    return into.get(collection.collection) ?? new Map();
  }

  private async lookUp(
    requests: KeyRequests,
    action: RowAction,
    into: Map<string, Map<string, boolean>>,
  ): Promise<void> {
    for (const { collection, keys } of requests.keys.values()) {
      const guard = this.ctx.accountability.admin ? null : (this.ctx.access?.rules(collection, action)?.filter ?? null);
      const found = await this.existingKeys(collection, [...keys.values()], guard);
      const merged = into.get(collection.collection) ?? new Map<string, boolean>();
      for (const [key, allowed] of found) merged.set(key, allowed);
      into.set(collection.collection, merged);
    }
  }

  /** Which of `keys` exist (as strings of their logical form), each with whether it satisfies `guard` (none = all). */
  private async existingKeys(
    collection: CollectionOverview,
    keys: readonly Key[],
    guard: PlannedFilter | null,
  ): Promise<FoundKeys> {
    const columns = keyColumnsOf(collection);
    const values = keyValuesOf(collection, keys);
    const found = new Map<string, boolean>();
    const table = collection.schema!.name;
    const statements = guard
      ? compileGuardedKeyLookups(table, columns, values, guard, this.hooks)
      : compileKeyLookups(table, columns, values, this.hooks);
    for (const statement of statements) {
      for (const row of await this.tx.query(statement.sql, statement.params))
        found.set(String(keyOfLookup(collection, row)), !guard || Number(row.allowed) === 1);
    }
    return found;
  }
}
