/**
 * The changes of a diff (deep-diff's `{kind, path, lhs, rhs, index, item}`) as a client sends them back to
 * /schema/apply: checked whole before any is applied, then applied by a walker of our own. deep-diff's `applyChange`
 * walks a path through whatever a name finds, inherited members included: `["__proto__", "x"]` or
 * `["constructor", "prototype", "x"]` wrote onto `Object.prototype`, and `["meta", "toString", "x"]` onto a shared
 * built-in function. Here a path is strings and indexes only, never one of the reserved names, and it walks own
 * properties only, making what is missing.
 */
import type deepDiff from 'deep-diff';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { isPrototypeKey, prototypeKeyReason, refusedKeyPath } from '../../request/prototype-keys.js';
import type { Json } from './snapshot.js';

/** One change of a diff, as deep-diff writes it and a client sends it back. */
export type Change = deepDiff.Diff<Json, Json>;

type Container = Record<string | number, unknown>;

const KINDS = new Set(['N', 'D', 'E', 'A']);

const isIndex = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** Why `value` (at `at`, e.g. `diff.fields[0].diff[2]`) is not a change this walker applies; null when it is one. */
export function changeProblem(value: unknown, at: string, nested = false): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `"${at}" must be an object`;
  const change = value as Record<string, unknown>;
  if (!KINDS.has(change.kind as string)) return `"${at}.kind" must be N, D, E or A`;
  if (change.path !== undefined) {
    if (nested) return `"${at}.path" can't be given in an array change's item`;
    if (!Array.isArray(change.path)) return `"${at}.path" must be an array`;
    for (const [i, segment] of change.path.entries()) {
      if (isPrototypeKey(segment)) return prototypeKeyReason(`${at}.path[${i}]`);
      if (typeof segment !== 'string' && !isIndex(segment))
        return `"${at}.path[${i}]" must be a name or an array index`;
    }
  }
  for (const side of ['lhs', 'rhs']) {
    const refused = refusedKeyPath(change[side], `${at}.${side}`);
    if (refused !== null) return prototypeKeyReason(refused);
  }
  if (change.kind === 'A') {
    if (!isIndex(change.index)) return `"${at}.index" must be an array index`;
    return changeProblem(change.item, `${at}.item`, true);
  }
  return null;
}

const malformed = (reason: string) => new InvalidPayloadError(`The diff can't be applied: ${reason}`);

const isContainer = (value: unknown): value is Container => value !== null && typeof value === 'object';

/** Applies one checked change to `target` in place, as deep-diff's `applyChange` would (own properties only). */
export function applyChange(target: Container, change: Change): void {
  const path = (change.path ?? []) as (string | number)[];
  if (!path.length) throw malformed('a change without a path must be the only change of its item');
  let it = target;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i]!;
    if (!Object.hasOwn(it, segment) || it[segment] === undefined)
      it[segment] = typeof path[i + 1] === 'number' ? [] : {};
    const next = it[segment];
    if (!isContainer(next)) throw malformed(`its path ${JSON.stringify(path)} runs through a value`);
    it = next;
  }
  const last = path[path.length - 1]!;
  if (change.kind === 'A') {
    if (!Object.hasOwn(it, last) || it[last] === undefined) it[last] = [];
    applyArrayChange(it[last], change.index, change.item as Change, path);
  } else if (change.kind === 'D') delete it[last];
  else it[last] = change.rhs;
}

function applyArrayChange(list: unknown, index: number, item: Change, path: (string | number)[]): void {
  if (!Array.isArray(list)) throw malformed(`its path ${JSON.stringify(path)} names no array`);
  if (item.kind === 'A') applyArrayChange(list[index], item.index, item.item as Change, [...path, index]);
  else if (item.kind === 'D') list.splice(index, 1);
  else list[index] = item.rhs;
}
