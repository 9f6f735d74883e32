/**
 * `fields` paths at one level → the outputs of that level (Directus docs: Query parameters: fields): plain and function fields, `*` and
 * `*.*` expansion, aliases, m2o objects, o2m lists (keys when not expanded), and m2a items scoped per collection
 * (`item:<collection>.<field>`). Deeper paths are handed to `planChild`, which plans the related level.
 */
import { ForbiddenError, InvalidQueryError } from '../errors/catalogue.js';
import { parseFieldFunction, splitFieldPath } from '../request/field-path.js';
import { hoistJsonFunction, isJsonFunction } from '../request/json-path.js';
import type { DeepQuery } from '../request/query.js';
import type { CollectionOverview } from '../schema/types.js';
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

  const entries = new Map<string, Entry>();
  const entry = (key: string, target: string, explicit: boolean) => {
    let found = entries.get(key);
    if (!found) entries.set(key, (found = { key, target, children: [], scopes: new Map(), explicit }));
    found.explicit ||= explicit;
    return found;
  };
  const readable = scope.access.read(collection);

  for (const written of paths) {
    const path = hoistJsonFunction(written, splitFieldPath) ?? written;
    const [head, ...rest] = splitFieldPath(path);
    const sub = rest.length ? rest.join('.') : null;
    if (head === '*') {
      // `*` is every field the caller may read (plus the aliases), nothing else.
      for (const name of collection.fieldOrder) {
        if (readable?.guard(name) === undefined) continue;
        const relational = Boolean(collection.links[name]);
        const e = entry(name, name, false);
        if (sub !== null && relational) e.children.push(sub);
      }
      for (const [key, target] of Object.entries(alias)) {
        const e = entry(key, target, false);
        if (sub !== null && collection.links[target]) e.children.push(sub);
      }
      continue;
    }
    const [name, scope] = (isJsonFunction(head!) ? [head] : head!.split(':')) as [string, string | undefined];
    const e = entry(name, alias[name] ?? name, true);
    if (scope !== undefined) {
      const list = e.scopes.get(scope) ?? [];
      list.push(sub ?? '*');
      e.scopes.set(scope, list);
    } else if (sub !== null) {
      e.children.push(sub);
    }
  }

  const outputs: PlannedOutput[] = [];
  for (const e of entries.values()) {
    const here = (key: string) => (where === 'root' ? key : `${where}.${key}`);
    const { fn, field: base } = parseFieldFunction(e.target);
    if (fn || isJsonFunction(e.target)) {
      if (e.children.length || e.scopes.size)
        throw new InvalidQueryError(`Function field "${e.target}" has no nested fields`);
      const resolved = resolveOperand(scope, collection, e.target, where);
      outputs.push({
        kind: 'value',
        key: e.key === e.target ? resolved.key : e.key,
        operand: resolved.operand,
        field: resolved.field,
        guard: null,
      });
      continue;
    }
    const field = fieldOf(scope, collection, base, where);
    const guard = readable!.guard(field.field) ?? null;
    // A related collection the caller may not read: an error when asked for by name, simply absent from `*`.
    const relatedReadable = (join: Join) => {
      if (scope.access.read(join.collection)) return true;
      if (e.explicit)
        throw new ForbiddenError(
          `You don't have permission to access collection "${join.collection.collection}" through "${here(e.key)}". Queried in ${where}.`,
        );
      return false;
    };
    const link = collection.links[field.field];
    if (!link) {
      if (e.children.length || e.scopes.size) {
        throw new ForbiddenError(
          `Field "${field.field}" in collection "${collection.collection}" is not relational; "${here(e.key)}.${[...e.children, ...e.scopes.keys()][0]}" can't be read. Queried in ${where}.`,
        );
      }
      // Presentation-only alias fields hold no data; they are simply absent from reads.
      if (field.schema) outputs.push({ kind: 'value', key: e.key, operand: { kind: 'field', field }, field, guard });
      continue;
    }
    const childDeep = deep && Object.hasOwn(deep, e.key) ? deep[e.key] : undefined;
    if (link.kind === 'm2o') {
      if (e.scopes.size) throw new InvalidQueryError(`Only many-to-any fields take a collection scope ("${e.key}")`);
      if (!e.children.length) {
        outputs.push({ kind: 'value', key: e.key, operand: { kind: 'field', field }, field, guard });
        continue;
      }
      const join = joinFor(scope.schema, collection, link);
      if (!relatedReadable(join)) continue;
      const level = planChild({
        join,
        fields: e.children,
        deep: childDeep,
        where: here(e.key),
        shape: 'object',
        sortField: null,
      });
      outputs.push({ kind: 'object', key: e.key, join, level, guard });
    } else if (link.kind === 'o2m') {
      if (e.scopes.size) throw new InvalidQueryError(`Only many-to-any fields take a collection scope ("${e.key}")`);
      const join = joinFor(scope.schema, collection, link);
      if (!relatedReadable(join)) continue;
      const expanded = e.children.length > 0;
      const level = planChild({
        join,
        fields: expanded ? e.children : [],
        deep: childDeep,
        where: here(e.key),
        shape: 'list',
        sortField: link.sortField,
      });
      const primary = join.collection.primary ? join.collection.fields[join.collection.primary]! : null;
      if (!expanded && !primary) continue;
      outputs.push({
        kind: 'list',
        key: e.key,
        join,
        level,
        scalar: expanded ? null : { operand: { kind: 'field', field: primary! }, field: primary! },
        guard,
      });
    } else {
      if (!e.children.length && !e.scopes.size) {
        outputs.push({ kind: 'value', key: e.key, operand: { kind: 'field', field }, field, guard });
        continue;
      }
      for (const scope of e.scopes.keys()) {
        if (!link.allowed.includes(scope)) {
          throw new ForbiddenError(
            `You don't have permission to access collection "${scope}" through "${here(e.key)}" or it does not exist. Queried in ${where}.`,
          );
        }
      }
      const branches = link.allowed
        .map((name) => {
          const fields = [...e.children, ...(e.scopes.get(name) ?? [])];
          if (!fields.length) return null;
          const join = joinFor(scope.schema, collection, link, name);
          if (!relatedReadable(join)) return null;
          const level = planChild({
            join,
            fields,
            deep: deep && Object.hasOwn(deep, `${e.key}:${name}`) ? deep[`${e.key}:${name}`] : undefined,
            where: here(`${e.key}:${name}`),
            shape: 'object',
            sortField: null,
          });
          return { collection: name, join, level };
        })
        .filter((b): b is NonNullable<typeof b> => b !== null);
      outputs.push({
        kind: 'any',
        key: e.key,
        field,
        collectionField: collection.fields[link.collectionField]!,
        branches,
        guard,
      });
    }
  }
  return outputs;
}
