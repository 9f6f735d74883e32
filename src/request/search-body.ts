/** SEARCH body (Directus docs: Items): `{query: {...}}` and/or `{keys: [...]}`; the URL query is ignored. */
import { Type } from '@sinclair/typebox';
import { checkBody, compileSchema, Present } from './body-check.js';
import { parseQuery, type QueryParseOptions } from './parse-query.js';
import type { KeyInput, Query } from './query.js';

const KEYS = '"keys" must be an array of strings, numbers or objects of key fields';

const SearchBody = compileSchema(
  Type.Intersect([
    Present('Payload in body is required'),
    Type.Object(
      {
        query: Type.Optional(Type.Object({}, { errorMessage: '"query" must be an object' })),
        keys: Type.Optional(
          Type.Array(Type.Union([Type.String(), Type.Number(), Type.Object({})], { errorMessage: KEYS }), {
            errorMessage: KEYS,
          }),
        ),
      },
      { additionalProperties: false, errorMessage: { type: '"body" must be an object' } },
    ),
  ]),
);

export function parseSearchBody(body: unknown, options: QueryParseOptions): Query {
  const { query, keys } = checkBody(SearchBody, body);
  const parsed = parseQuery(query ?? {}, options);
  if (keys !== undefined) parsed.keys = keys as KeyInput[];
  return parsed;
}
