/**
 * The GraphQL scalars of Directus (Directus docs: GraphQL). Values come from the read engine already in wire form (ISO dates, JSON, concealed
 * hashes), so serialisation passes them through; big integers travel as strings so no digit is lost.
 */
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';

function literal(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(literal);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literal(f.value)]));
    default:
      return undefined;
  }
}

const identity = (value: unknown) => value;

export const GraphQLJSON = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: identity,
  parseValue: identity,
  parseLiteral: (node, variables) => (node.kind === Kind.VARIABLE ? variables?.[node.name.value] : literal(node)),
});

export const GraphQLGeoJSON = new GraphQLScalarType({
  name: 'GraphQLGeoJSON',
  description: 'A GeoJSON geometry.',
  serialize: identity,
  parseValue: identity,
  parseLiteral: (node) => literal(node),
});

export const GraphQLBigInt = new GraphQLScalarType({
  name: 'GraphQLBigInt',
  description: 'An integer of up to 64 bits, as a string.',
  serialize: (value) => (value === null || value === undefined ? value : String(value)),
  parseValue: (value) => bigInt(value),
  parseLiteral: (node) => bigInt(node.kind === Kind.INT || node.kind === Kind.STRING ? node.value : undefined),
});

function bigInt(value: unknown): string {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d+$/.test(text))
    throw new TypeError(`GraphQLBigInt cannot represent ${String(value)}`);
  return text;
}

export const GraphQLDate = new GraphQLScalarType({
  name: 'Date',
  description: 'A date, time or timestamp as an ISO 8601 string.',
  serialize: identity,
  parseValue: identity,
  parseLiteral: (node) => (node.kind === Kind.STRING ? node.value : undefined),
});

export const GraphQLHash = new GraphQLScalarType({
  name: 'Hash',
  description: 'A hashed value: written in clear, read concealed.',
  serialize: identity,
  parseValue: identity,
  parseLiteral: (node) => (node.kind === Kind.STRING ? node.value : undefined),
});

export const GraphQLVoid = new GraphQLScalarType({
  name: 'Void',
  description: 'Nothing.',
  serialize: () => null,
  parseValue: () => null,
  parseLiteral: () => null,
});

/** Filter operands of number and date filters: a number, or a string such as `$NOW(-1 day)`. */
export const GraphQLStringOrFloat = new GraphQLScalarType({
  name: 'GraphQLStringOrFloat',
  description: 'A string or a number.',
  serialize: identity,
  parseValue: (value) => {
    if (typeof value === 'string' || typeof value === 'number') return value;
    throw new TypeError('GraphQLStringOrFloat takes a string or a number');
  },
  parseLiteral: (node) => {
    if (node.kind === Kind.STRING) return node.value;
    if (node.kind === Kind.INT || node.kind === Kind.FLOAT) return Number(node.value);
    throw new TypeError('GraphQLStringOrFloat takes a string or a number');
  },
});
