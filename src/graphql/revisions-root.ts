/**
 * `revisions` and `revisions_by_id` on /graphql/system as REST's /revisions answers them: a non-admin sees revisions
 * of items they may read now, with `data` and `delta` cut to the fields they may read of that item
 * (engine/read/revision-access.ts). Their reads skip the pass-through (the answer is not the database's JSON), and
 * aggregates over revisions, which would count or group revisions of unreadable items, are for admins only.
 */
import { judgeRevisionList, withJudgedFields } from '../engine/read/revision-access.js';
import type { RowsRead } from '../engine/read/items-service.js';
import { ForbiddenError } from '../errors/catalogue.js';
import type { Query } from '../request/query.js';
import type { GraphQLContext } from './context.js';

export const JUDGED_COLLECTION = 'service_revisions';

const OPTIONS = { system: true, singleton: false };

/** The caller's revisions for a list (`key` null) or one revision (null when it is not theirs to see). */
export async function judgedRevisions(ctx: GraphQLContext, query: Query, key: string | null): Promise<RowsRead> {
  const { accountability, marks } = ctx;
  const asked = accountability.admin ? { query, added: [] } : withJudgedFields(query);
  const read =
    key === null
      ? await ctx.app.items.rowsMany(JUDGED_COLLECTION, asked.query, accountability, marks, OPTIONS)
      : await ctx.app.items.rowsOne(JUDGED_COLLECTION, key, asked.query, accountability, marks, OPTIONS);
  if (accountability.admin) return read;
  const list = Array.isArray(read.data) ? read.data : read.data ? [read.data] : [];
  const kept = await judgeRevisionList(
    ctx.app.items,
    ctx.app.schema.current,
    list as Record<string, unknown>[],
    accountability,
    asked.added,
  );
  if (key !== null && kept.length === 0) throw new ForbiddenError();
  return { ...read, data: key === null ? kept : kept[0] };
}

/** Aggregates over revisions: admins only. */
export function assertAggregatable(ctx: GraphQLContext, collection: string): void {
  if (collection === JUDGED_COLLECTION && !ctx.accountability.admin) throw new ForbiddenError();
}
