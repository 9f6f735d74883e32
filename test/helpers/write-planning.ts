/**
 * The pure write planner by collection name, as the writer drives it (`open` checks the collection, then the draft
 * is planned), and lookups built by hand: what the lookup stage would have read inside the transaction.
 */
import type { DeletePlan, Key, MutationPlan, WriteLookups } from '../../src/plan/mutation-plan.js';
import { linkKey } from '../../src/plan/mutation-plan.js';
import * as planner from '../../src/plan/mutation-planner.js';
import type { WriteContext } from '../../src/plan/write-context.js';
import type { Payload } from '../../src/request/write-body.js';

export function planCreate(name: string, items: Payload[], many: boolean, ctx: WriteContext): MutationPlan {
  return planner.planCreate(planner.itemsCollection(name, ctx, 'create'), items, many, ctx);
}

export function planUpdate(
  name: string,
  entries: { key: unknown; payload: Payload }[],
  many: boolean,
  ctx: WriteContext,
  shared = false,
): MutationPlan {
  return planner.planUpdate(planner.itemsCollection(name, ctx, 'update'), entries, many, ctx, shared);
}

export function planDelete(name: string, keys: unknown[], ctx: WriteContext): DeletePlan {
  return planner.planDelete(planner.itemsCollection(name, ctx, 'delete'), keys, ctx);
}

/** Lookups: `rows` per collection, each key → whether the caller's update rule holds on it. */
export function lookups(
  rows: Record<string, Record<string, boolean>> = {},
  linked: { related: string; fk: string; parent: Key; keys: Key[] }[] = [],
  deletable: Record<string, Record<string, boolean>> = {},
): WriteLookups {
  const maps = (byCollection: Record<string, Record<string, boolean>>) =>
    new Map(Object.entries(byCollection).map(([name, keys]) => [name, new Map(Object.entries(keys))]));
  return {
    updatable: maps(rows),
    deletable: maps(deletable),
    linked: new Map(linked.map(({ related, fk, parent, keys }) => [linkKey(related, fk, parent), keys])),
  };
}
