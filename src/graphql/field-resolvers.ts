/**
 * Resolvers below the root: none touches the database. The root field's one statement returns every level, keyed
 * by response key where a field can be asked for twice with different arguments (relations, function fields);
 * plain values keep their field names, so graphql-jit reads them with its inlined default resolver.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { Row } from '../db/connection.js';
import { emptyRecord } from '../request/prototype-keys.js';

/** Marks the collection of an m2a item, for the union's resolveType. */
export const ITEM_TYPE = Symbol('strata.itemType');

export const byResponseKey = (source: Row, _args: unknown, _context: unknown, info: GraphQLResolveInfo): unknown =>
  source[info.path.key as string];

/** Key under which the walk asks for `<fn>(<field>)` of a `<field>_func` selection. */
export const functionKey = (responseKey: string, fn: string) => `__${responseKey}_${fn}`;

/** Key under which the walk asks for the junction's collection column next to an m2a item. */
export const itemCollectionKey = (responseKey: string) => `__${responseKey}_collection`;

export function functionResolver(source: Row, _args: unknown, _context: unknown, info: GraphQLResolveInfo): Row {
  const prefix = `__${info.path.key as string}_`;
  const values: Row = emptyRecord();
  for (const key of Object.keys(source)) if (key.startsWith(prefix)) values[key.slice(prefix.length)] = source[key];
  return values;
}

export function anyItemResolver(source: Row, _args: unknown, _context: unknown, info: GraphQLResolveInfo): unknown {
  const key = info.path.key as string;
  const collection = source[itemCollectionKey(key)];
  const value = source[key];
  if (value === null || value === undefined || typeof collection !== 'string') return null;
  // A row of a collection no fragment selected from comes back as its bare key: it is still that type.
  const item: Record<string | symbol, unknown> = typeof value === 'object' ? { ...(value as Row) } : {};
  item[ITEM_TYPE] = collection;
  return item;
}

/**
 * o2m lists whose selection is only the related key are read as REST's key lists (a lighter statement); each key
 * becomes the object GraphQL expects here.
 */
export function keyListResolver(primary: string) {
  const wrap = (key: unknown): Row => {
    const row: Row = emptyRecord();
    row[primary] = key;
    return row;
  };
  return (source: Row, _args: unknown, _context: unknown, info: GraphQLResolveInfo): unknown => {
    const value = source[info.path.key as string];
    if (!Array.isArray(value) || !value.length || (typeof value[0] === 'object' && value[0] !== null)) return value;
    return value.map(wrap);
  };
}
