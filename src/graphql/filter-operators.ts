/**
 * The operator input types of filters (Directus docs: GraphQL), shared by every generated schema, and the function-field
 * types (`<field>_func { year ... }`) with their filter counterparts.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import type { ServiceType } from '../schema/types.js';
import { GraphQLBigInt, GraphQLGeoJSON, GraphQLStringOrFloat } from './scalars.js';

const TEXT_OPERATORS = [
  '_eq',
  '_neq',
  '_contains',
  '_icontains',
  '_ncontains',
  '_starts_with',
  '_nstarts_with',
  '_istarts_with',
  '_nistarts_with',
  '_ends_with',
  '_nends_with',
  '_iends_with',
  '_niends_with',
];
const FLAGS = ['_null', '_nnull'];

function operators(name: string, groups: [string[], GraphQLInputType][]): GraphQLInputObjectType {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const [names, type] of groups) for (const op of names) fields[op] = { type };
  return new GraphQLInputObjectType({ name, fields });
}

const textOperators = (name: string, type: GraphQLInputType) =>
  operators(name, [
    [TEXT_OPERATORS, type],
    [['_in', '_nin'], new GraphQLList(type)],
    [[...FLAGS, '_empty', '_nempty'], GraphQLBoolean],
  ]);

const numberOperators = (name: string, type: GraphQLInputType) =>
  operators(name, [
    [['_eq', '_neq', '_gt', '_gte', '_lt', '_lte'], type],
    [['_in', '_nin', '_between', '_nbetween'], new GraphQLList(type)],
    [FLAGS, GraphQLBoolean],
  ]);

export const STRING_FILTER = textOperators('string_filter_operators', GraphQLString);
export const ID_FILTER = textOperators('id_filter_operators', GraphQLID);
export const NUMBER_FILTER = numberOperators('number_filter_operators', GraphQLStringOrFloat);
export const BIG_INT_FILTER = numberOperators('big_int_filter_operators', GraphQLBigInt);
export const DATE_FILTER = operators('date_filter_operators', [
  [['_eq', '_neq', '_gt', '_gte', '_lt', '_lte'], GraphQLString],
  [['_in', '_nin'], new GraphQLList(GraphQLString)],
  [['_between', '_nbetween'], new GraphQLList(GraphQLStringOrFloat)],
  [FLAGS, GraphQLBoolean],
]);
export const BOOLEAN_FILTER = operators('boolean_filter_operators', [
  [['_eq', '_neq'], GraphQLBoolean],
  [FLAGS, GraphQLBoolean],
]);
export const GEOMETRY_FILTER = operators('geometry_filter_operators', [
  [['_eq', '_neq', '_intersects', '_nintersects', '_intersects_bbox', '_nintersects_bbox'], GraphQLGeoJSON],
  [FLAGS, GraphQLBoolean],
]);
export const HASH_FILTER = operators('hash_filter_operators', [[[...FLAGS, '_empty', '_nempty'], GraphQLBoolean]]);

/** The operator type filtering a field of `type`: numbers compare as numbers even in keys; other keys and uuids as IDs. */
export function filterOperatorsFor(type: ServiceType, isKey: boolean): GraphQLInputObjectType | null {
  if (type === 'uuid' || (isKey && !['integer', 'bigInteger', 'float', 'decimal'].includes(type))) return ID_FILTER;
  switch (type) {
    case 'integer':
    case 'float':
    case 'decimal':
      return NUMBER_FILTER;
    case 'bigInteger':
      return BIG_INT_FILTER;
    case 'boolean':
      return BOOLEAN_FILTER;
    case 'date':
    case 'time':
    case 'dateTime':
    case 'timestamp':
      return DATE_FILTER;
    case 'geometry':
      return GEOMETRY_FILTER;
    case 'hash':
      return HASH_FILTER;
    case 'string':
    case 'text':
    case 'csv':
    case 'json':
      return STRING_FILTER;
    default:
      return null;
  }
}

/** Function fields per kind of field: what `<field>_func` offers and how it filters. */
const FUNCTION_SETS = {
  date: ['year', 'month', 'week', 'day', 'weekday'],
  time: ['hour', 'minute', 'second'],
  datetime: ['year', 'month', 'week', 'day', 'weekday', 'hour', 'minute', 'second'],
  count: ['count'],
} as const;

export type FunctionKind = keyof typeof FUNCTION_SETS;

function functionTypes(kind: FunctionKind) {
  const names = FUNCTION_SETS[kind];
  return {
    output: new GraphQLObjectType({
      name: `${kind}_functions`,
      fields: Object.fromEntries(names.map((n) => [n, { type: GraphQLInt }])),
    }),
    filter: new GraphQLInputObjectType({
      name: `${kind}_function_filter_operators`,
      fields: Object.fromEntries(names.map((n) => [n, { type: NUMBER_FILTER }])),
    }),
  };
}

export const FUNCTION_TYPES: Record<FunctionKind, ReturnType<typeof functionTypes>> = {
  date: functionTypes('date'),
  time: functionTypes('time'),
  datetime: functionTypes('datetime'),
  count: functionTypes('count'),
};

/** The function fields a field of `type` has (json and o2m/m2m/m2a fields count their elements). */
export function functionKindFor(type: ServiceType, list: boolean): FunctionKind | null {
  if (list || type === 'json') return 'count';
  if (type === 'date') return 'date';
  if (type === 'time') return 'time';
  if (type === 'dateTime' || type === 'timestamp') return 'datetime';
  return null;
}

export const NUMERIC_OUTPUT = GraphQLFloat;
