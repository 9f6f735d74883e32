/**
 * The second, last planning pass, inside the transaction: a draft (mutation-planner.ts) + what the lookup stage read
 * (engine/write/write-lookups.ts) + the argon2 hashes made before the transaction → the plan the executor runs as it
 * is (pure). Updates must find a row their rule allows (FORBIDDEN otherwise, the same either way: existence is never
 * revealed); upserts become creates (with their key) or updates, with the rules, presets and checks of what they
 * became; bare-key links must find rows the caller may update; rows an array no longer names, or a detailed
 * `delete` names, get the relation's deselect action under the caller's rules for it, and count against
 * MAX_BATCH_MUTATION with the draft's rows.
 */
import { ForbiddenError, InvalidPayloadError } from '../errors/catalogue.js';
import type { Payload } from '../request/write-body.js';
import type {
  ChildWrites,
  DeletePlan,
  Key,
  MutationPlan,
  RowWrite,
  WriteHashes,
  WriteLookups,
} from './mutation-plan.js';
import { linkKey } from './mutation-plan.js';
import { completeRow } from './row-completion.js';
import { hasCompositeKey, keyFieldsOf, keyOfValues, keyParts } from './row-key.js';
import { finishPlanning, startPlanning, type Planning, type WriteContext } from './write-context.js';
import { applyRules, checkField, rulesFor } from './write-rules.js';
import { lengthProblem } from './write-values.js';

/**
 * The key a draft row names: its own, or — a composite-key child named without its parent's key column — completed
 * with `parentKey`; null when the database will assign it (or the parent's key is not known before it is written).
 */
export function draftKey(row: RowWrite, parentKey: unknown): Key | null {
  if (row.key !== null) return row.key;
  if (!hasCompositeKey(row.collection) || row.filledByParent === null || parentKey === null || parentKey === undefined)
    return null;
  return keyOfValues(row.collection, { ...row.values, [row.filledByParent]: parentKey }) ?? null;
}

/** The key the o2m children of `row` point at (its key, or the field the relation names), when known. */
export function childParentKey(row: RowWrite, key: Key | null, local: string): Key | null {
  const value = local === row.collection.primary ? key : row.values[local];
  return value === undefined ? null : (value as Key | null);
}

/**
 * Per `related\0foreign key`: keys of rows a write names under that relation anywhere in the draft (a composite
 * key completed by its parent's key where that is known; `topKey`: a singleton's row).
 */
export function keptKeys(rows: readonly RowWrite[], topKey: Key | null = null): Map<string, Set<string>> {
  const kept = new Map<string, Set<string>>();
  const visit = (row: RowWrite, key: Key | null) => {
    row.parents.forEach((parent) => visit(parent.row, draftKey(parent.row, null)));
    for (const set of row.children) {
      const id = `${set.related.collection}\u0000${set.link.relatedField}`;
      const keys = kept.get(id) ?? new Set<string>();
      kept.set(id, keys);
      set.assign.forEach((assigned) => keys.add(String(assigned)));
      const parentKey = childParentKey(row, key, set.link.localField);
      for (const child of [...set.rows, ...set.updates]) {
        const childKey = draftKey(child, parentKey);
        if (childKey !== null) keys.add(String(childKey));
        visit(child, childKey);
      }
    }
  };
  rows.forEach((row) => visit(row, topKey ?? draftKey(row, null)));
  return kept;
}

/**
 * The rows of `set` that get the deselect action: linked to an existing parent now and not named by any write of
 * that relation (basic array form), or named by `delete` (detailed form).
 */
export function deselected(set: ChildWrites, linked: readonly Key[], kept: Map<string, Set<string>>): Key[] {
  const named = kept.get(`${set.related.collection}\u0000${set.link.relatedField}`) ?? new Set<string>();
  const removed = new Set(set.remove.map(String));
  return linked.filter((key) => (set.replace && !named.has(String(key))) || removed.has(String(key)));
}

interface Resolution {
  planning: Planning;
  lookups: WriteLookups;
  hashes: WriteHashes;
  kept: Map<string, Set<string>>;
  /** Parents already resolved: a batch update's m2o object is one row under every key's row. */
  parents: Map<RowWrite, RowWrite>;
}

/** Draft + lookups + hashes → the plan; every failure found is thrown together (finishPlanning). */
export function resolvePlan(
  draft: MutationPlan,
  lookups: WriteLookups,
  hashes: WriteHashes,
  ctx: WriteContext,
): MutationPlan {
  const r: Resolution = {
    planning: startPlanning(ctx, draft.rowCount),
    lookups,
    hashes,
    kept: keptKeys(draft.rows, lookups.singleton ?? null),
    parents: new Map(),
  };
  const rows = draft.rows.map((row) => resolveRow(r, row, null, lookups.singleton));
  finishPlanning(r.planning);
  return { collection: draft.collection, rows, rowCount: r.planning.rowCount };
}

/** FORBIDDEN (and nothing deleted) unless every key of the plan names a row the caller may delete. */
export function checkDeletes(plan: DeletePlan, lookups: WriteLookups): void {
  const found = lookups.deletable.get(plan.collection.collection);
  if (plan.keys.some((key) => found?.get(String(key)) !== true)) throw new ForbiddenError();
}

/** `singleton`: the key a singleton's row has (null: none yet); undefined for every other row. */
function resolveRow(r: Resolution, draft: RowWrite, parentKey: Key | null, singleton?: Key | null): RowWrite {
  const { payload, ...rest } = draft;
  const row: RowWrite = {
    ...rest,
    values: { ...draft.values },
    hashFields: [...draft.hashFields],
    parents: [],
    children: [],
  };
  let key = draftKey(draft, parentKey);
  if (singleton !== undefined && singleton !== null) {
    if (key !== null && String(key) !== String(singleton))
      throw new InvalidPayloadError(`The primary key "${keyFieldsOf(row.collection)[0]!.field}" can't be changed`);
    key = singleton;
  }
  row.key = key;
  const found = key === null ? undefined : r.lookups.updatable.get(row.collection.collection)?.get(String(key));
  if (draft.action === 'update' && found !== true) throw new ForbiddenError();
  if (draft.action === 'upsert') {
    if (found === false) throw new ForbiddenError();
    settleUpsert(r.planning, row, payload, found === true, draft.parents.length + draft.children.length > 0);
  }
  hashValues(r, draft, row);
  row.parents = draft.parents.map((parent) => {
    const resolved = r.parents.get(parent.row) ?? resolveRow(r, parent.row, null);
    r.parents.set(parent.row, resolved);
    return { ...parent, row: resolved };
  });
  row.children = draft.children.map((set) =>
    resolveChildren(r, set, row, childParentKey(row, row.key, set.link.localField)),
  );
  return row;
}

/** An upsert whose lookup is done: the rules of what it became, then that action's completion. */
function settleUpsert(
  planning: Planning,
  row: RowWrite,
  payload: Payload | undefined,
  exists: boolean,
  nested: boolean,
): void {
  if (payload) applyRules(planning, row, exists ? 'update' : 'create', payload);
  const parts = row.key === null ? null : keyParts(row.collection, row.key);
  if (exists) {
    // The key columns an upsert named only say which row it is.
    row.collection.keyFields.forEach((name, i) => {
      if (row.values[name] !== undefined && String(row.values[name]) === String(parts![i])) delete row.values[name];
    });
    if (Object.keys(row.values).length === 0 && !nested) row.action = 'update';
    else completeRow(planning, row, 'update');
  } else {
    if (parts) row.collection.keyFields.forEach((name, i) => (row.values[name] = parts[i]));
    completeRow(planning, row, 'create');
  }
}

/** Plain values of hash fields (payload or preset) → the hashes made for them before the transaction. */
function hashValues(r: Resolution, draft: RowWrite, row: RowWrite): void {
  if (row.hashFields.length === 0) return;
  const made = r.hashes.get(draft);
  for (const name of new Set(row.hashFields)) {
    const plain = row.values[name];
    if (typeof plain !== 'string') continue;
    const hashed = made?.get(plain);
    if (hashed === undefined)
      throw new Error(`No hash was made for ${row.collection.collection}.${name} before the transaction`);
    row.values[name] = hashed;
    const tooLong = lengthProblem(row.collection, row.collection.fields[name]!, hashed);
    if (tooLong) r.planning.errors.push(tooLong);
  }
}

function resolveChildren(r: Resolution, draft: ChildWrites, parent: RowWrite, parentKey: Key | null): ChildWrites {
  const { planning, lookups } = r;
  const { ctx } = planning;
  const { related, link } = draft;
  const set: ChildWrites = {
    ...draft,
    rows: draft.rows.map((child) => resolveRow(r, child, parentKey)),
    updates: draft.updates.map((child) => resolveRow(r, child, parentKey)),
    deselect: [],
  };
  const updatable = lookups.updatable.get(related.collection);
  if (set.assign.some((key) => updatable?.get(String(key)) !== true)) throw new ForbiddenError();
  // A row created by this write has nothing linked to it yet.
  if (parent.action !== 'update' || parentKey === null) return set;
  set.deselect = deselected(
    set,
    lookups.linked.get(linkKey(related.collection, link.relatedField, parentKey)) ?? [],
    r.kept,
  );
  if (set.deselect.length === 0) return set;
  // Keys named in `delete` were counted when the draft was planned; only rows an array replaces count here.
  const named = new Set(set.remove.map(String));
  planning.rowCount += set.deselect.filter((key) => !named.has(String(key))).length;
  if (ctx.accountability.admin) return set;
  const action = link.deselectAction === 'delete' ? 'delete' : 'update';
  const rules = rulesFor(ctx, related, action);
  if (action === 'update') checkField(ctx, rules, related, link.relatedField, []);
  if (rules?.filter) {
    const guarded = (action === 'delete' ? lookups.deletable : lookups.updatable).get(related.collection);
    if (set.deselect.some((key) => guarded?.get(String(key)) === false)) throw new ForbiddenError();
  }
  return set;
}
