/** Helpers of the GraphQL tests: asking through GraphQL and REST, and comparing the two answers. */
import assert from 'node:assert/strict';
import qs from 'qs';
import { json, type TestApp } from '../helpers/test-app.js';

export async function gql(
  t: TestApp,
  query: string,
  options: { variables?: Record<string, unknown>; token?: string | null; url?: string; operationName?: string } = {},
) {
  const response = await t.request({
    method: 'POST',
    url: options.url ?? '/graphql',
    payload: { query, variables: options.variables, operationName: options.operationName },
    token: options.token,
  });
  return { status: response.statusCode, body: json(response), response };
}

/** The `data` of a GraphQL answer that must succeed without errors. */
export async function gqlData(t: TestApp, query: string, options: Parameters<typeof gql>[2] = {}) {
  const { status, body } = await gql(t, query, options);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

export async function rest(t: TestApp, path: string, query: Record<string, unknown> = {}, token?: string | null) {
  const search = qs.stringify(query, { encodeValuesOnly: true });
  const response = await t.request({ method: 'GET', url: `${path}${search ? `?${search}` : ''}`, token });
  assert.equal(response.statusCode, 200, response.body);
  return json(response).data;
}

/** A REST path's collection: `/items/<collection>…`, or a system collection's route (`/users/me` → service_users). */
function collectionOf(path: string): string {
  const [first, second] = path.split('?')[0]!.split('/').filter(Boolean);
  return first === 'items' ? second! : `service_${first}`;
}

interface Relation {
  collection: string;
  field: string;
  related_collection: string | null;
  meta: { one_field: string | null; one_collection_field?: string | null } | null;
}

/**
 * REST data as GraphQL must answer it, field by field from the collection's field types (as the GraphQL schema maps
 * them): keys and uuids are ID strings, bigIntegers strings, floats and decimals Floats (REST sends decimals as
 * strings), integers Ints, booleans Booleans; relational values follow their relation into the related collection.
 */
async function graphqlValues(t: TestApp, collection: string, data: unknown): Promise<unknown> {
  const fields = json<{
    data: { collection: string; field: string; type: string; schema: { is_primary_key: boolean } | null }[];
  }>(await t.request({ method: 'GET', url: '/fields' })).data;
  const relations = json<{ data: Relation[] }>(await t.request({ method: 'GET', url: '/relations' })).data;
  const scalar = (type: string | undefined, primary: boolean, value: unknown): unknown => {
    if (value === null || value === undefined) return value;
    if (primary || type === 'uuid' || type === 'bigInteger') return String(value);
    if (type === 'float' || type === 'decimal') return Number(value);
    return value;
  };
  const convert = (name: string, value: unknown): unknown => {
    if (Array.isArray(value)) return value.map((v) => convert(name, v));
    if (value === null || typeof value !== 'object') return value;
    const row = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(row).map(([key, v]) => {
        const field = fields.find((f) => f.collection === name && f.field === key);
        if (v !== null && typeof v === 'object' && !['json', 'csv', 'geometry'].includes(field?.type ?? '')) {
          const m2o = relations.find((r) => r.collection === name && r.field === key);
          const o2m = relations.find((r) => r.related_collection === name && r.meta?.one_field === key);
          const anyCollection = m2o?.meta?.one_collection_field ? row[m2o.meta.one_collection_field] : undefined;
          const related = m2o
            ? (m2o.related_collection ?? (typeof anyCollection === 'string' ? anyCollection : null))
            : (o2m?.collection ?? null);
          return [key, related ? convert(related, v) : v];
        }
        return [key, scalar(field?.type, field?.schema?.is_primary_key ?? false, v)];
      }),
    );
  };
  return convert(collection, data);
}

/** A REST read's data in the types GraphQL answers with (see graphqlValues): what the GraphQL query must equal. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as rest(): the shape is the test's to know
export async function restAsGraphql(
  t: TestApp,
  path: string,
  query: Record<string, unknown> = {},
  token?: string | null,
): Promise<any> {
  return graphqlValues(t, collectionOf(path), await rest(t, path, query, token));
}

/** Exact comparison: a GraphQL answer and what it must be, types included (ID strings, Int and Float numbers…). */
export function assertSame(graphql: unknown, expected: unknown, message?: string): void {
  assert.deepEqual(graphql, expected, message);
}
