/**
 * The small vocabulary the OpenAPI builder writes schemas in, and the one place where OpenAPI 3.0 and 3.1 differ
 * for us: how a value says it may be null (3.0 `nullable: true`, 3.1 a `null` type, as JSON Schema 2020-12).
 */
export type JsonSchema = Record<string, unknown>;

export type OasVersion = '3.0' | '3.1';

export const OPENAPI_VERSIONS: Record<OasVersion, string> = { '3.0': '3.0.3', '3.1': '3.1.0' };

export function ref(component: string): JsonSchema {
  return { $ref: `#/components/schemas/${component}` };
}

/** `schema`, allowed to be null. A schema without a type (any JSON value) already allows null. */
export function nullable(schema: JsonSchema, version: OasVersion): JsonSchema {
  const hasType = typeof schema.type === 'string';
  if (version === '3.1') {
    if (hasType) return { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.oneOf)) return { ...schema, oneOf: [...schema.oneOf, { type: 'null' }] };
    if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
    if (schema.$ref) return { oneOf: [schema, { type: 'null' }] };
    return schema;
  }
  if (hasType || Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) return { ...schema, nullable: true };
  // 3.0 ignores siblings of $ref: wrap it.
  if (schema.$ref) return { nullable: true, allOf: [schema] };
  return schema;
}

/** Collection name → a component name (`articles_tags` → `ArticlesTags`), as Directus's specifications name them. */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const text = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
  return text || 'Collection';
}
