/**
 * Names as written in `fields`, `filter`, `sort` and `groupBy` → Operands and Joins, under the caller's read
 * access. Function fields (`year(date)`, `count(tags)`) and m2o paths (`author.name`) resolve here, with the errors
 * the reference gives: a field that does not exist — or that the caller may not read, which looks the same — is
 * FORBIDDEN (naming where it was asked for); a function on the wrong type is INVALID_QUERY.
 */
import { collectionForbidden, fieldForbidden, InvalidQueryError } from '../errors/catalogue.js';
import { parseFieldFunction, splitFieldPath } from '../request/field-path.js';
import { isJsonFunction, jsonFunctionKey, parseJsonFunction } from '../request/json-path.js';
import type { CollectionOverview, FieldOverview, RelationalLink, SchemaOverview } from '../schema/types.js';
import type { AccessPolicy, CollectionAccess } from './access.js';
import type { Join, Operand } from './read-plan.js';
import { datePartApplies, isDatePart } from './type-rules.js';

/** What every planning step needs: the schema and what the caller may read of it. */
export interface OperandScope {
  schema: SchemaOverview;
  access: AccessPolicy;
}

/** What function fields and counts bind and compare as. */
export const INTEGER_FIELD: FieldOverview = Object.freeze({
  field: '',
  type: 'integer',
  special: [],
  schema: null,
  meta: null,
  nullable: true,
  primaryKey: false,
  concealed: false,
  searchable: false,
});

function integerNamed(key: string): FieldOverview {
  return { ...INTEGER_FIELD, field: key };
}

export interface ResolvedOperand {
  operand: Operand;
  /** The field whose type rules the value (an integer field for functions and counts). */
  field: FieldOverview;
  /** Response key: the field name, or `<field>_<fn>` for function fields. */
  key: string;
}

/** The caller's access to a collection it reaches through a relation; FORBIDDEN when it has none. */
export function accessTo(scope: OperandScope, collection: CollectionOverview): CollectionAccess {
  const access = scope.access.read(collection);
  if (!access) throw collectionForbidden(collection.collection);
  return access;
}

/** `where` names the level for FORBIDDEN reasons (`root`, `author`, `articles.tags`). */
export function fieldOf(
  scope: OperandScope,
  collection: CollectionOverview,
  name: string,
  where: string,
): FieldOverview {
  const field = collection.fields[name];
  if (!field || scope.access.read(collection)?.guard(name) === undefined)
    throw fieldForbidden(name, collection.collection, where);
  return field;
}

/** The operand, shown only where the caller may read `field` (a guard from field-level permissions). */
export function guarded(scope: OperandScope, collection: CollectionOverview, field: string, operand: Operand): Operand {
  const guard = scope.access.read(collection)?.guard(field);
  return guard ? { kind: 'guarded', guard, operand } : operand;
}

export function joinFor(
  schema: SchemaOverview,
  collection: CollectionOverview,
  link: RelationalLink,
  scope?: string,
): Join {
  if (link.kind === 'a2o') {
    if (!scope)
      throw new InvalidQueryError(
        `Many-to-any field "${link.field}" needs a collection scope ("${link.field}:<collection>")`,
      );
    const related = schema.collections[scope];
    if (!related || !link.allowed.includes(scope)) {
      throw new InvalidQueryError(
        `"${scope}" is not one of the collections of many-to-any field "${link.field}" (${link.allowed.join(', ')})`,
      );
    }
    return {
      collection: related,
      table: related.schema!.name,
      relatedField: related.fields[related.primary!]!,
      localField: collection.fields[link.field]!,
      anyCollectionField: collection.fields[link.collectionField]!,
    };
  }
  const related = schema.collections[link.related]!;
  return {
    collection: related,
    table: related.schema!.name,
    relatedField: related.fields[link.relatedField]!,
    localField: collection.fields[link.kind === 'm2o' ? link.field : link.localField]!,
    anyCollectionField: null,
  };
}

/** One name at one level: a field, or a function of one. `count(o2m)` counts the related rows the caller may read. */
export function resolveOperand(
  scope: OperandScope,
  collection: CollectionOverview,
  name: string,
  where: string,
): ResolvedOperand {
  if (isJsonFunction(name)) return resolveJsonFunction(scope, collection, name, where);
  const { fn, field: base } = parseFieldFunction(name);
  const field = fieldOf(scope, collection, base, where);
  const shown = (operand: Operand) => guarded(scope, collection, base, operand);
  if (!fn) {
    if (!field.schema)
      throw new InvalidQueryError(
        `Field "${base}" of collection "${collection.collection}" holds no value of its own; select or filter on its related fields`,
      );
    return { operand: shown({ kind: 'field', field }), field, key: base };
  }
  const key = `${base}_${fn}`;
  if (isDatePart(fn)) {
    if (!datePartApplies(fn, field.type) || !field.schema)
      throw new InvalidQueryError(`Function "${fn}" can't be applied to field "${base}" of type ${field.type}`);
    return { operand: shown({ kind: 'date-part', part: fn, field }), field: integerNamed(key), key };
  }
  if (fn === 'count') {
    const link = collection.links[base];
    if (link?.kind === 'o2m') {
      const join = joinFor(scope.schema, collection, link);
      const related = accessTo(scope, join.collection);
      return { operand: shown({ kind: 'count-related', join, filter: related.filter }), field: integerNamed(key), key };
    }
    if (field.type === 'json' && field.schema)
      return { operand: shown({ kind: 'json-length', field }), field: integerNamed(key), key };
    throw new InvalidQueryError(
      `Function "count" can only be applied to one-to-many and JSON fields, not to "${base}"`,
    );
  }
  throw new InvalidQueryError(`Function "${fn}" is not supported here ("${name}")`);
}

/** `json(field, path)` at one level (relational first arguments were moved up by the selection planner). */
function resolveJsonFunction(
  scope: OperandScope,
  collection: CollectionOverview,
  name: string,
  where: string,
): ResolvedOperand {
  const fn = parseJsonFunction(name);
  const field = fieldOf(scope, collection, fn.field, where);
  if (field.type !== 'json' || !field.schema)
    throw new InvalidQueryError(
      `json() can only read JSON fields; "${fn.field}" in collection "${collection.collection}" is of type ${field.type}`,
    );
  const key = jsonFunctionKey(fn.field, fn.path);
  const operand = guarded(scope, collection, fn.field, { kind: 'json-path', field, path: fn.segments });
  return { operand, field: { ...field, field: key, primaryKey: false }, key };
}

/** Filters, sorts and groups take fields and date functions; json() reads values only in `fields`, as in Directus. */
export function refuseJsonFunction(name: string): void {
  if (isJsonFunction(name))
    throw new InvalidQueryError(`json() can only be used in "fields", not in filters, sorts or groups ("${name}")`);
}

/**
 * A dot path through relations to an operand at its end (`author.name`, `author.year(joined)`,
 * `item:headings.level`), for sort and groupBy. Each hop is a related-row lookup limited to the rows the caller may
 * read there: m2o hops and m2a hops scoped to one collection (`item:<collection>`) reach one row. One-to-many hops
 * (o2m, m2m, m2a lists) reach many and are taken only when `toMany` says which value stands for them (sorts: the
 * smallest ascending, the largest descending, so each row appears once); otherwise they are refused.
 */
export function resolvePath(
  scope: OperandScope,
  collection: CollectionOverview,
  path: string,
  root: string,
  toMany?: 'min' | 'max',
): ResolvedOperand & { keys: string[] } {
  const segments = splitFieldPath(path);
  const hops: { join: Join; from: CollectionOverview; field: string; many: boolean }[] = [];
  let current = collection;
  let where = root;
  const keys: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    const [name, scoped] = segment.split(':') as [string, string | undefined];
    const field = fieldOf(scope, current, name, where);
    const link = current.links[field.field];
    const many = link?.kind === 'o2m';
    const fits = link && (link.kind === 'm2o' || (link.kind === 'a2o' && scoped !== undefined) || (many && toMany));
    if (!fits) {
      const reason =
        link?.kind === 'a2o'
          ? 'needs a collection scope ("item:<collection>")'
          : toMany
            ? 'is not relational'
            : 'is not one';
      throw new InvalidQueryError(
        `"${path}" can only follow many-to-one${toMany ? ', one-to-many' : ''} and scoped many-to-any fields; "${segment}" ${reason}`,
      );
    }
    if (scoped !== undefined && link.kind !== 'a2o')
      throw new InvalidQueryError(`Only many-to-any fields take a collection scope ("${segment}")`);
    const join = joinFor(scope.schema, current, link, scoped);
    accessTo(scope, join.collection);
    hops.push({ join, from: current, field: field.field, many });
    keys.push(name);
    current = join.collection;
    where = where === 'root' ? segment : `${where}.${segment}`;
  }
  refuseJsonFunction(segments[segments.length - 1]!);
  const last = resolveOperand(scope, current, segments[segments.length - 1]!, where);
  let operand = last.operand;
  for (const hop of hops.reverse()) {
    const filter = accessTo(scope, hop.join.collection).filter;
    const related: Operand = hop.many
      ? { kind: 'related', join: hop.join, operand, filter, pick: toMany }
      : { kind: 'related', join: hop.join, operand, filter };
    operand = guarded(scope, hop.from, hop.field, related);
  }
  return { operand, field: last.field, key: last.key, keys: [...keys, last.key] };
}
