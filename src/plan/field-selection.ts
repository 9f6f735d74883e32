/**
 * `fields` paths at one level → the outputs of that level (Directus docs: Query parameters: fields): plain and function fields, `*` and
 * `*.*` expansion, aliases, m2o objects, o2m lists (keys when not expanded), and m2a items scoped per collection
 * (`item:<collection>.<field>`). Deeper paths are handed to `planChild`, which plans the related level.
 */
import { ForbiddenError, InvalidQueryError } from '../errors/catalogue.js';
import { parseFieldFunction, splitFieldPath } from '../request/field-path.js';
import { hoistJsonFunction, isJsonFunction } from '../request/json-path.js';
import type { DeepQuery } from '../request/query.js';
import type { CollectionOverview, FieldOverview, RelationalLink } from '../schema/types.js';
import { fieldOf, joinFor, resolveOperand, type OperandScope } from './operands.js';
import type { Join, PlannedOutput, ReadLevel } from './read-plan.js';

export interface ChildRequest {
  join: Join;
  /** Paths relative to the related collection. */
  fields: string[];
  deep: DeepQuery | undefined;
  where: string;
  /** o2m lists are sorted and limited per parent; m2o objects are one row. */
  shape: 'object' | 'list';
  /** The relation's own sort field (o2m), which comes before the related collection's. */
  sortField: string | null;
}

interface Entry {
  key: string;
  /** Field name or function call as written (after alias resolution). */
  target: string;
  children: string[];
  scopes: Map<string, string[]>;
  /** Named in `fields` (not only reached through `*`): what the caller may not read is then an error, not omitted. */
  explicit: boolean;
  /** Asked for as a field of this level (named alone, or through `*`), not only as the head of a longer path. */
  plain: boolean;
}

export function planSelection(
  scope: OperandScope,
  collection: CollectionOverview,
  paths: string[],
  deep: Record<string, DeepQuery> | undefined,
  where: string,
  planChild: (request: ChildRequest) => ReadLevel,
  aliases: Record<string, string> = {},
): PlannedOutput[] {
  // Own keys only: `fields=__proto__` or `constructor` is a name, not a property of every object.
  const alias: Record<string, string> = Object.assign(Object.create(null), aliases);
  // `deep` keys apply to the relations this read selects; others (not relational, unknown, not readable) are
  // ignored, as Directus ignores them, so they reveal nothing of the schema either.
  const ctx: SelectionContext = { scope, collection, deep, where, planChild, readable: scope.access.read(collection) };
  const outputs: PlannedOutput[] = [];
  for (const e of collectEntries(ctx, paths, alias).values()) {
    const output = planEntry(ctx, e);
    if (output) outputs.push(output);
  }
  return outputs;
}

/** What every entry of one level is planned with. */
interface SelectionContext {
  scope: OperandScope;
  collection: CollectionOverview;
  deep: Record<string, DeepQuery> | undefined;
  where: string;
  planChild: (request: ChildRequest) => ReadLevel;
  readable: ReturnType<OperandScope['access']['read']>;
}

type LinkOf<K extends RelationalLink['kind']> = Extract<RelationalLink, { kind: K }>;
type Guard = PlannedOutput['guard'];

/** The level's paths grouped by their first segment, `*` expanded to what the caller may read. */
function collectEntries(ctx: SelectionContext, paths: string[], alias: Record<string, string>): Map<string, Entry> {
  const { collection, readable } = ctx;
  const entries = new Map<string, Entry>();
  const entry = (key: string, target: string, explicit: boolean, plain: boolean) => {
    let found = entries.get(key);
    if (!found) entries.set(key, (found = { key, target, children: [], scopes: new Map(), explicit, plain }));
    found.explicit ||= explicit;
    found.plain ||= plain;
    return found;
  };
  for (const written of paths) {
    const path = hoistJsonFunction(written, splitFieldPath) ?? written;
    const [head, ...rest] = splitFieldPath(path);
    const sub = rest.length ? rest.join('.') : null;
    if (head === '*') {
      // `*` is every field the caller may read (plus the aliases), nothing else.
      for (const name of collection.fieldOrder) {
        if (readable?.guard(name) === undefined) continue;
        const relational = Boolean(collection.links[name]);
        const e = entry(name, name, false, true);
        if (sub !== null && relational) e.children.push(sub);
      }
      for (const [key, target] of Object.entries(alias)) {
        const e = entry(key, target, false, true);
        if (sub !== null && collection.links[target]) e.children.push(sub);
      }
      continue;
    }
    const [name, scope] = (isJsonFunction(head!) ? [head] : head!.split(':')) as [string, string | undefined];
    const e = entry(name, alias[name] ?? name, true, sub === null && scope === undefined);
    if (scope !== undefined) {
      const list = e.scopes.get(scope) ?? [];
      list.push(sub ?? '*');
      e.scopes.set(scope, list);
    } else if (sub !== null) {
      e.children.push(sub);
    }
  }
  return entries;
}

const here = (ctx: SelectionContext, key: string) => (ctx.where === 'root' ? key : `${ctx.where}.${key}`);

/** A related collection the caller may not read: an error when asked for by name, simply absent from `*`. */
function relatedReadable(ctx: SelectionContext, e: Entry, join: Join): boolean {
  if (ctx.scope.access.read(join.collection)) return true;
  if (e.explicit)
    throw new ForbiddenError(
      `You don't have permission to access collection "${join.collection.collection}" through "${here(ctx, e.key)}". Queried in ${ctx.where}.`,
    );
  return false;
}

/** One entry's output; null when it is left out (not readable through `*`, or holding no data). */
function planEntry(ctx: SelectionContext, e: Entry): PlannedOutput | null {
  const { scope, collection, where } = ctx;
  const { fn, field: base } = parseFieldFunction(e.target);
  if (fn || isJsonFunction(e.target)) {
    if (e.children.length || e.scopes.size)
      throw new InvalidQueryError(`Function field "${e.target}" has no nested fields`);
    const resolved = resolveOperand(scope, collection, e.target, where);
    return {
      kind: 'value',
      key: e.key === e.target ? resolved.key : e.key,
      operand: resolved.operand,
      field: resolved.field,
      guard: null,
    };
  }
  // A longer path (or `json(a.b, …)`) through a field that is no relation — unknown, or a plain column — is ignored,
  // as Directus ignores it; the field itself is still read where it is also asked for alone.
  if (!collection.links[base] && !e.plain) return null;
  const field = fieldOf(scope, collection, base, where);
  const guard = ctx.readable!.guard(field.field) ?? null;
  const link = collection.links[field.field];
  if (!link) {
    // Presentation-only alias fields hold no data; they are simply absent from reads.
    return field.schema ? { kind: 'value', key: e.key, operand: { kind: 'field', field }, field, guard } : null;
  }
  if (link.kind !== 'a2o' && e.scopes.size)
    throw new InvalidQueryError(`Only many-to-any fields take a collection scope ("${e.key}")`);
  if (link.kind === 'm2o') {
    if (!e.children.length) return { kind: 'value', key: e.key, operand: { kind: 'field', field }, field, guard };
    const join = joinFor(scope.schema, collection, link);
    if (!relatedReadable(ctx, e, join)) return null;
    const level = ctx.planChild({
      join,
      fields: e.children,
      deep: deepOf(ctx, e.key),
      where: here(ctx, e.key),
      shape: 'object',
      sortField: null,
    });
    return { kind: 'object', key: e.key, join, level, guard };
  }
  if (link.kind === 'o2m') return planList(ctx, e, link, guard);
  if (!e.children.length && !e.scopes.size)
    return { kind: 'value', key: e.key, operand: { kind: 'field', field }, field, guard };
  return planAny(ctx, e, field, link, guard);
}

function deepOf(ctx: SelectionContext, key: string): DeepQuery | undefined {
  return ctx.deep && Object.hasOwn(ctx.deep, key) ? ctx.deep[key] : undefined;
}

/** An o2m field: the related rows, or their keys when not expanded. */
function planList(ctx: SelectionContext, e: Entry, link: LinkOf<'o2m'>, guard: Guard): PlannedOutput | null {
  const join = joinFor(ctx.scope.schema, ctx.collection, link);
  if (!relatedReadable(ctx, e, join)) return null;
  const expanded = e.children.length > 0;
  const level = ctx.planChild({
    join,
    fields: expanded ? e.children : [],
    deep: deepOf(ctx, e.key),
    where: here(ctx, e.key),
    shape: 'list',
    sortField: link.sortField,
  });
  const primary = join.collection.primary ? join.collection.fields[join.collection.primary]! : null;
  if (!expanded && !primary) return null;
  return {
    kind: 'list',
    key: e.key,
    join,
    level,
    scalar: expanded ? null : { operand: { kind: 'field', field: primary! }, field: primary! },
    guard,
  };
}

/** An a2o field (the items of an m2a): one branch per allowed collection that has fields to read. */
function planAny(
  ctx: SelectionContext,
  e: Entry,
  field: FieldOverview,
  link: LinkOf<'a2o'>,
  guard: Guard,
): PlannedOutput {
  for (const scope of e.scopes.keys()) {
    if (!link.allowed.includes(scope)) {
      throw new ForbiddenError(
        `You don't have permission to access collection "${scope}" through "${here(ctx, e.key)}" or it does not exist. Queried in ${ctx.where}.`,
      );
    }
  }
  const branches = link.allowed
    .map((name) => {
      const fields = [...e.children, ...(e.scopes.get(name) ?? [])];
      if (!fields.length) return null;
      const join = joinFor(ctx.scope.schema, ctx.collection, link, name);
      if (!relatedReadable(ctx, e, join)) return null;
      const level = ctx.planChild({
        join,
        fields,
        deep: deepOf(ctx, `${e.key}:${name}`),
        where: here(ctx, `${e.key}:${name}`),
        shape: 'object',
        sortField: null,
      });
      return { collection: name, join, level };
    })
    .filter((b): b is NonNullable<typeof b> => b !== null);
  return {
    kind: 'any',
    key: e.key,
    field,
    collectionField: ctx.collection.fields[link.collectionField]!,
    branches,
    guard,
  };
}
