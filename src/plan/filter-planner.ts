/**
 * Filter AST, search terms and key lists → PlannedFilter for one level, under the caller's read access. Relational
 * rules become EXISTS (m2o, a2o scopes, o2m `_some`) or NOT EXISTS (o2m `_none`) over the related rows the caller
 * may read, so they compose with `_and`/`_or` at any depth, never multiply rows, and never reveal hidden rows.
 */
import { collectionForbidden, ForbiddenError, InvalidQueryError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { FilterNode, FilterOperator, FilterValue, KeyInput, ScalarValue } from '../request/query.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.js';
import type { AccessPolicy } from './access.js';
import { accessTo, fieldOf, guarded, joinFor, refuseJsonFunction, resolveOperand } from './operands.js';
import type { PlannedFilter } from './read-plan.js';
import { keyFieldsOf, keyParts, parseKey, type Key } from './row-key.js';
import { coerceValue, isUuid } from './value-coercion.js';

export interface FilterContext {
  schema: SchemaOverview;
  access: AccessPolicy;
  accountability: Accountability;
  now: Date;
  /** Values of `$CURRENT_USER.<path>` / `$CURRENT_ROLE.<path>` by variable, loaded before planning. */
  dynamic?: ReadonlyMap<string, unknown>;
  /** A permission rule (written by an admin) rather than the caller's own filter: concealed fields may be compared. */
  rule?: boolean;
}

/** The only comparisons a caller may make on a concealed or hashed value (Directus refuses the others with 400). */
const CONCEALED_OPERATORS = new Set(['_null', '_nnull']);

const TEXT_OPERATORS = new Set([
  '_contains',
  '_ncontains',
  '_icontains',
  '_nicontains',
  '_starts_with',
  '_nstarts_with',
  '_istarts_with',
  '_nistarts_with',
  '_ends_with',
  '_nends_with',
  '_iends_with',
  '_niends_with',
  '_ieq',
  '_nieq',
]);
const ORDERING_OPERATORS = new Set(['_lt', '_lte', '_gt', '_gte', '_between', '_nbetween']);
const UNORDERED_TYPES = new Set(['boolean', 'json', 'binary', 'geometry', 'csv']);

export function and(filters: (PlannedFilter | null | undefined)[]): PlannedFilter | null {
  const kept = filters.filter((f): f is PlannedFilter => Boolean(f));
  return kept.length === 0 ? null : kept.length === 1 ? kept[0]! : { kind: 'and', children: kept };
}

export function planFilter(
  collection: CollectionOverview,
  node: FilterNode,
  ctx: FilterContext,
  where = 'root',
): PlannedFilter {
  switch (node.type) {
    case 'logical':
      return {
        kind: node.operator === '_and' ? 'and' : 'or',
        children: node.children.map((child) => planFilter(collection, child, ctx, where)),
      };
    case 'relation':
      return planRelation(collection, node, ctx, where);
    case 'condition': {
      refuseJsonFunction(node.field);
      const resolved = resolveOperand(ctx, collection, node.field, where);
      if (resolved.field.concealed && !ctx.rule && !CONCEALED_OPERATORS.has(node.operator)) {
        throw new InvalidQueryError(
          `Field "${node.field}" is concealed: it can only be filtered with _null and _nnull`,
        );
      }
      if (ORDERING_OPERATORS.has(node.operator) && UNORDERED_TYPES.has(resolved.field.type)) {
        throw new InvalidQueryError(
          `Operator "${node.operator}" can't be used with field "${node.field}" of type ${resolved.field.type}`,
        );
      }
      const uuids = resolved.field.type === 'uuid' ? withoutMalformedUuids(node.operator, node.value) : undefined;
      if (uuids === NO_ROW) return { kind: 'constant', value: false };
      if (uuids === ANY_VALUE)
        return { kind: 'compare', operand: resolved.operand, field: resolved.field, operator: '_nnull', value: true };
      const { operator, value } = planValue(resolved.field, node.operator, uuids ?? node.value, ctx);
      return { kind: 'compare', operand: resolved.operand, field: resolved.field, operator, value };
    }
  }
}

const NO_ROW = Symbol('no row');
const ANY_VALUE = Symbol('any value');

/**
 * A uuid field compared for (in)equality with literals that can't be uuids: those literals equal no row's value, so
 * they match nothing (`_eq`, `_in`) or every row with a value (`_neq`, `_nin`) — the answer SQL comparisons give
 * on SQLite, where Directus answers so too — on every database alike (PostgreSQL's uuid columns couldn't compare
 * them), instead of an error. The value without them; undefined when nothing changes.
 */
function withoutMalformedUuids(
  operator: FilterOperator,
  value: FilterValue,
): FilterValue | typeof NO_ROW | typeof ANY_VALUE | undefined {
  const malformed = (v: ScalarValue) =>
    v !== null && typeof v !== 'object' && !(typeof v === 'string' && isUuid(v.trim()));
  if (operator === '_eq' || operator === '_neq') {
    if (Array.isArray(value) || !malformed(value)) return undefined;
    return operator === '_eq' ? NO_ROW : ANY_VALUE;
  }
  if ((operator === '_in' || operator === '_nin') && Array.isArray(value) && value.some(malformed)) {
    const kept = value.filter((v) => !malformed(v));
    if (kept.length) return kept;
    return operator === '_in' ? NO_ROW : ANY_VALUE;
  }
  return undefined;
}

/** `$FOLLOW(collection, field)`: the rows of `collection` whose m2o `field` points at this row (no alias needed). */
const FOLLOW = /^\$FOLLOW\(\s*([^,\s]+)\s*,\s*([^,)\s]+)\s*\)$/;

function planRelation(
  collection: CollectionOverview,
  node: Extract<FilterNode, { type: 'relation' }>,
  ctx: FilterContext,
  where: string,
): PlannedFilter {
  const follow = FOLLOW.exec(node.field);
  if (follow) return planFollow(collection, node, follow[1]!, follow[2]!, ctx, where);
  const [name, scope] = node.field.split(':') as [string, string | undefined];
  const field = fieldOf(ctx, collection, name, where);
  const link = collection.links[field.field];
  const path = where === 'root' ? node.field : `${where}.${node.field}`;
  if (!link)
    throw new ForbiddenError(
      `Field "${name}" in collection "${collection.collection}" is not relational; "${path}" can't be filtered through it.`,
    );
  if (link.kind !== 'a2o' && scope !== undefined)
    throw new InvalidQueryError(`Only many-to-any fields take a collection scope ("${node.field}")`);
  if (link.kind !== 'o2m' && node.quantifier)
    throw new InvalidQueryError(`"${node.quantifier}" can only follow one-to-many fields, not "${name}"`);
  const join = joinFor(ctx.schema, collection, link, scope);
  const related = accessTo(ctx, join.collection);
  const filter = and([related.filter, planFilter(join.collection, node.filter, ctx, path)]);
  const none = node.quantifier === '_none';
  // Where the relational field itself is hidden, the row relates to nothing the caller can see.
  const guard = ctx.access.read(collection)?.guard(field.field);
  if (!guard) return { kind: 'exists', join, filter, negate: none };
  const some = and([guard, { kind: 'exists', join, filter, negate: false }])!;
  return none ? { kind: 'not', child: some } : some;
}

/** Rows by key; a composite key matches every one of its columns. Keys that cannot be keys match nothing. */
/**
 * A reverse relation named by its many side, as an o2m alias field would name it: EXISTS (`_some`, the default) or
 * NOT EXISTS (`_none`) over the related rows the caller may read, joined on the m2o field the caller may read.
 */
function planFollow(
  collection: CollectionOverview,
  node: Extract<FilterNode, { type: 'relation' }>,
  target: string,
  fieldName: string,
  ctx: FilterContext,
  where: string,
): PlannedFilter {
  const path = where === 'root' ? node.field : `${where}.${node.field}`;
  const related = ctx.schema.collections[target];
  if (!related || !ctx.access.read(related)) throw collectionForbidden(target);
  const field = fieldOf(ctx, related, fieldName, path);
  const relation = ctx.schema.relations.find((r) => r.collection === target && r.field === fieldName);
  const link = related.links[field.field];
  if (
    !relation ||
    relation.related_collection !== collection.collection ||
    link?.kind !== 'm2o' ||
    !collection.primary
  ) {
    throw new InvalidQueryError(
      `"${node.field}" needs a many-to-one field "${fieldName}" of collection "${target}" pointing at "${collection.collection}"`,
    );
  }
  const join = {
    collection: related,
    table: related.schema!.name,
    relatedField: field,
    localField: collection.fields[collection.primary]!,
    anyCollectionField: null,
  };
  // Rows whose link the caller may not read relate to nothing, as through a hidden alias field.
  const guard = ctx.access.read(related)?.guard(fieldName) ?? null;
  const filter = and([accessTo(ctx, related).filter, guard, planFilter(related, node.filter, ctx, path)]);
  return { kind: 'exists', join, filter, negate: node.quantifier === '_none' };
}

export function planKeys(collection: CollectionOverview, keys: KeyInput[]): PlannedFilter {
  const fields = keyFieldsOf(collection);
  if (fields.length === 0) throw new ForbiddenError();
  const parsed = keys.map((key) => parseKey(collection, key)).filter((key): key is Key => key !== null);
  if (parsed.length === 0) return { kind: 'constant', value: false };
  if (fields.length === 1)
    return {
      kind: 'compare',
      operand: { kind: 'field', field: fields[0]! },
      field: fields[0]!,
      operator: '_in',
      value: parsed,
    };
  const unique = [...new Set(parsed.map(String))];
  const rows: PlannedFilter[] = unique.map((key) => ({
    kind: 'and',
    children: keyParts(collection, key).map((part, i): PlannedFilter => ({
      kind: 'compare',
      operand: { kind: 'field', field: fields[i]! },
      field: fields[i]!,
      operator: '_eq',
      value: part,
    })),
  }));
  return rows.length === 1 ? rows[0]! : { kind: 'or', children: rows };
}

/** Search looks only at fields the caller may read, and only where it may read them. */
export function planSearch(ctx: FilterContext, collection: CollectionOverview, term: string): PlannedFilter {
  const children: PlannedFilter[] = [];
  const trimmed = term.trim();
  const access = ctx.access.read(collection);
  const compare = (field: FieldOverview, operator: '_icontains' | '_eq', value: unknown): PlannedFilter => ({
    kind: 'compare',
    operand: guarded(ctx, collection, field.field, { kind: 'field', field }),
    field,
    operator,
    value,
  });
  for (const key of collection.fieldOrder) {
    const field = collection.fields[key]!;
    if (!field.searchable || access?.guard(key) === undefined) continue;
    if (field.type === 'string' || field.type === 'text') {
      children.push(compare(field, '_icontains', term.toLowerCase()));
    } else if (field.type === 'uuid') {
      if (isUuid(trimmed)) children.push(compare(field, '_eq', trimmed.toLowerCase()));
    } else if (/^[-+]?(\d+\.?\d*|\.\d+)$/.test(trimmed)) {
      if ((field.type === 'integer' || field.type === 'bigInteger') && !/^[-+]?\d+$/.test(trimmed)) continue;
      if (field.type === 'integer' && !Number.isSafeInteger(Number(trimmed))) continue;
      children.push(compare(field, '_eq', coerceValue(field, trimmed)));
    }
  }
  return children.length ? { kind: 'or', children } : { kind: 'constant', value: false };
}

/**
 * The operand of a rule, coerced to the field's type. Dynamic values are resolved here; list variables
 * ($CURRENT_ROLES, or a path reaching several rows) turn `_eq`/`_neq` into `_in`/`_nin`.
 */
function planValue(
  field: FieldOverview,
  operator: FilterOperator,
  value: FilterValue,
  ctx: FilterContext,
): { operator: FilterOperator; value: unknown } {
  if (operator === '_null' || operator === '_nnull' || operator === '_empty' || operator === '_nempty')
    return { operator, value };
  const label = field.field || 'function';
  const one = (resolved: string | number | boolean | Date | null) => {
    if (resolved === null) return null;
    // Text operators compare the text of any column; case-insensitive ones compare lower-cased text.
    if (TEXT_OPERATORS.has(operator)) {
      const text = resolved instanceof Date ? resolved.toISOString() : String(resolved);
      return operator.includes('_i') || operator.startsWith('_ni') ? text.toLowerCase() : text;
    }
    return coerceValue(field, resolved);
  };
  if (Array.isArray(value)) {
    const values = value.flatMap((v) => [resolveDynamic(v, ctx)].flat()).map(one);
    if (
      (operator === '_between' || operator === '_nbetween') &&
      (values.length !== 2 || values.some((v) => v === null))
    ) {
      throw new InvalidQueryError(`"${operator}" of field "${label}" needs two bounds that are not null`);
    }
    return { operator, value: operator === '_in' || operator === '_nin' ? values.filter((v) => v !== null) : values };
  }
  const resolved = resolveDynamic(value, ctx);
  if (Array.isArray(resolved)) {
    if (operator !== '_eq' && operator !== '_neq')
      throw new InvalidQueryError(`"${operator}" of field "${label}" can't compare with a list`);
    return { operator: operator === '_eq' ? '_in' : '_nin', value: resolved.map(one).filter((v) => v !== null) };
  }
  const single = one(resolved);
  if (single === null && !['_eq', '_neq'].includes(operator)) {
    throw new InvalidQueryError(`"${operator}" of field "${label}" can't compare with null`);
  }
  return { operator, value: single };
}

export type Resolved = string | number | boolean | Date | null;

export function resolveDynamic(
  value: ScalarValue,
  ctx: Pick<FilterContext, 'accountability' | 'now' | 'dynamic'>,
): Resolved | Resolved[] {
  if (value === null || typeof value !== 'object') return value;
  switch (value.dynamic) {
    case 'NOW':
      return new Date(ctx.now.getTime() + value.offsetMs);
    case 'CURRENT_ROLES':
      return ctx.accountability.roles;
    case 'CURRENT_POLICIES':
      return ctx.accountability.policies;
    case 'CURRENT_USER':
    case 'CURRENT_ROLE': {
      if (!value.path) return value.dynamic === 'CURRENT_USER' ? ctx.accountability.user : ctx.accountability.role;
      const found = ctx.dynamic?.get(`$${value.dynamic}.${value.path.join('.')}`);
      if (found === undefined || found === null) return null;
      if (Array.isArray(found)) return found.map(scalarOf);
      return scalarOf(found);
    }
  }
}

/** A loaded value as a filter operand (objects, which a path ending on a relation gives, compare as their JSON). */
function scalarOf(value: unknown): Resolved {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}
