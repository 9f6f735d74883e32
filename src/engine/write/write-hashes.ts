/**
 * The argon2 hashes a write needs, made before its transaction opens (no connection is held while libuv hashes).
 */
import type { MutationPlan, RowWrite, WriteHashes } from '../../plan/mutation-plan.js';
import type { WriteContext } from '../../plan/write-context.js';
import { writeValue, WriteValueProblem } from '../../plan/write-values.js';

/**
 * argon2 hashes of every value a draft's `hash` fields may store: the payload's, and for a non-admin's upserts the
 * presets of both rules its lookup may choose between. Made concurrently on the libuv pool.
 */
export async function hashWriteValues(
  draft: MutationPlan,
  ctx: WriteContext,
  hash: (plain: string) => Promise<string>,
): Promise<WriteHashes> {
  const hashes = new Map<RowWrite, Map<string, string>>();
  const pending: Promise<void>[] = [];
  const add = (row: RowWrite, plain: string) => {
    const made = hashes.get(row) ?? new Map<string, string>();
    hashes.set(row, made);
    if (made.has(plain)) return;
    made.set(plain, '');
    pending.push(hash(plain).then((hashed) => void made.set(plain, hashed)));
  };
  const visit = (row: RowWrite) => {
    for (const name of row.hashFields) if (typeof row.values[name] === 'string') add(row, row.values[name] as string);
    if (row.payload && ctx.access) {
      for (const action of ['create', 'update'] as const) {
        for (const [name, value] of Object.entries(ctx.access.rules(row.collection, action)?.presets ?? {})) {
          const field = row.collection.fields[name];
          if (field?.type !== 'hash' || row.payload[name] !== undefined) continue;
          const plain = presetPlain(row, name, value);
          if (plain) add(row, plain);
        }
      }
    }
    row.parents.forEach((parent) => visit(parent.row));
    row.children.forEach((set) => [...set.rows, ...set.updates].forEach(visit));
  };
  draft.rows.forEach(visit);
  await Promise.all(pending);
  return hashes;
}

/** The plain value a preset stores in a hash field (what the planner will hash), or null for none. */
function presetPlain(row: RowWrite, name: string, value: unknown): string | null {
  try {
    const logical = writeValue(row.collection, row.collection.fields[name]!, value, row.path);
    return typeof logical === 'string' && logical !== '' ? logical : null;
  } catch (error) {
    if (error instanceof WriteValueProblem) return null;
    throw error;
  }
}
