/** Helpers of the GraphQL tests: asking through GraphQL and REST, and comparing the two answers. */
import assert from 'node:assert/strict';
import qs from 'qs';
import { json, type TestApp } from '../helpers/test-app.js';

export async function gql(t: TestApp, query: string, options: { variables?: Record<string, unknown>; token?: string | null; url?: string; operationName?: string } = {}) {
  const response = await t.request({ method: 'POST', url: options.url ?? '/graphql', payload: { query, variables: options.variables, operationName: options.operationName }, token: options.token });
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

/**
 * The same data in the two wire forms: GraphQL serialises keys as ID strings and decimals as Float where REST sends
 * numbers and decimal strings, so scalars are compared by their numeric value where they have one.
 */
export function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return String(Number(value));
  return value;
}

export function assertSame(graphql: unknown, restData: unknown, message?: string): void {
  assert.deepEqual(normalize(graphql), normalize(restData), message);
}
