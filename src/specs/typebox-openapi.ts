/**
 * A TypeBox schema (JSON Schema as ajv checks it) → the schema OpenAPI shows. 3.1 reads JSON Schema 2020-12, so only
 * our own `errorMessage` keyword goes; 3.0 reads a subset: a type list becomes `anyOf` (and `null` in it or in an
 * `enum` becomes `nullable`), `if/then/else` becomes `anyOf` of its branches, and a `not` 3.0 cannot say (a `null`
 * type, `contains`) is left out, which only makes the shown schema accept more than the server does.
 */
import type { TSchema } from '@sinclair/typebox';
import type { JsonSchema, OasVersion } from './json-schema.js';

/** Keywords that hold one subschema, or a list of them. */
const ONE = ['items', 'not', 'if', 'then', 'else', 'contains', 'additionalProperties'];
const MANY = ['allOf', 'anyOf', 'oneOf'];

export function openApiSchema(schema: TSchema, version: OasVersion): JsonSchema {
  // A structured clone leaves TypeBox's symbol keys behind (and never touches the declared schema itself).
  return convert(structuredClone(schema) as JsonSchema, version);
}

function convert(node: JsonSchema, version: OasVersion): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'errorMessage') continue;
    if (key === 'properties') out.properties = mapValues(value as Record<string, JsonSchema>, version);
    else if (ONE.includes(key) && value && typeof value === 'object') out[key] = convert(value as JsonSchema, version);
    else if (MANY.includes(key))
      // A step that says nothing here (a `not` left out) is left out too.
      out[key] = (value as JsonSchema[])
        .map((item) => convert(item, version))
        .filter((item) => Object.keys(item).length);
    else out[key] = value;
  }
  const shown = version === '3.1' ? out : toOas30(out);
  // What is left of a list of steps with one step is that step.
  const keys = Object.keys(shown);
  if (keys.length === 1 && Array.isArray(shown.allOf) && shown.allOf.length === 1) return shown.allOf[0] as JsonSchema;
  if (Array.isArray(shown.enum) && shown.type === undefined && shown.enum.every((value) => typeof value === 'string'))
    return { type: 'string', ...shown };
  return shown;
}

function mapValues(properties: Record<string, JsonSchema>, version: OasVersion): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, convert(value, version)]));
}

function toOas30(input: JsonSchema): JsonSchema {
  let node = input;
  if (node.if !== undefined) {
    const { if: _test, then, else: otherwise, ...rest } = node;
    node = { ...rest, anyOf: [then ?? {}, otherwise ?? {}] };
  }
  if (node.not !== undefined && !expressibleIn30(node.not as JsonSchema)) {
    const { not: _dropped, ...rest } = node;
    node = rest;
  }
  if (Array.isArray(node.type)) {
    const list = node.type as string[];
    const types = list.filter((type) => type !== 'null');
    const { type: _list, ...rest } = node;
    const nullable = types.length < list.length ? { nullable: true } : {};
    node =
      types.length === 1
        ? { ...rest, type: types[0], ...nullable }
        : { ...rest, anyOf: types.map((type) => ({ type })), ...nullable };
  }
  if (Array.isArray(node.enum) && node.enum.includes(null))
    node = { ...node, enum: node.enum.filter((value) => value !== null), nullable: true };
  return node;
}

/** A `not` 3.0 can say: no `null` type, no `contains`, anywhere inside. */
function expressibleIn30(node: JsonSchema): boolean {
  const text = JSON.stringify(node);
  return !text.includes('"null"') && !text.includes('"contains"');
}
