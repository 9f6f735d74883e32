/**
 * The body of POST /versions/{id}/promote (Directus docs: Content versions): the main item's hash the client last saw
 * (`mainHash`, from compare) and, optionally, the fields of the delta to promote.
 */
import { Type } from '@sinclair/typebox';
import { checkBody, compileSchema, Present } from './body-check.js';

export const PromoteBody = compileSchema(
  Type.Intersect([
    Present('Payload in body is required'),
    Type.Object(
      {
        mainHash: Type.String({ errorMessage: '"mainHash" field is required' }),
        fields: Type.Optional(Type.Array(Type.String(), { errorMessage: '"fields" must be an array of field names' })),
      },
      {
        required: ['mainHash'],
        errorMessage: { type: '"value" must be of type object', required: '"mainHash" field is required' },
      },
    ),
  ]),
);

export function parsePromoteBody(body: unknown): { mainHash: string; fields: string[] | null } {
  const checked = checkBody(PromoteBody, body) as { mainHash: string; fields?: string[] };
  return { mainHash: checked.mainHash, fields: checked.fields ?? null };
}
