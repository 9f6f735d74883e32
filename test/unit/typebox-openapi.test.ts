/** TypeBox schemas as the OpenAPI document shows them: JSON Schema for 3.1, the 3.0 subset for 3.0. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { IfArray, Nullable, OneOf, Present } from '../../src/request/body-check.js';
import { openApiSchema } from '../../src/specs/typebox-openapi.js';

describe('openApiSchema', () => {
  it('drops errorMessage and TypeBox symbols, and keeps JSON Schema as is for 3.1', () => {
    const schema = Type.Object({ a: Nullable(Type.String(), { errorMessage: 'no' }) }, { errorMessage: 'x' });
    assert.deepEqual(openApiSchema(schema, '3.1'), {
      type: 'object',
      required: ['a'],
      properties: { a: { type: ['string', 'null'] } },
    });
  });

  it('says null as nullable in 3.0, type lists as anyOf, nullable enums as enums of strings', () => {
    const schema = Type.Object({
      a: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
      b: Type.Optional(Type.Unsafe({ type: ['string', 'number', 'null'] })),
      c: Type.Optional(OneOf(['x', 'y'] as const, { nullable: true })),
    });
    assert.deepEqual(openApiSchema(schema, '3.0').properties, {
      a: { type: 'integer', minimum: 1, nullable: true },
      b: { anyOf: [{ type: 'string' }, { type: 'number' }], nullable: true },
      c: { type: 'string', enum: ['x', 'y'], nullable: true },
    });
  });

  it('turns if/then/else into anyOf and leaves out in 3.0 the `not` it cannot say', () => {
    const item = Type.Object({});
    const schema = Type.Intersect([Present('required'), IfArray(Type.Array(item), item)]);
    assert.deepEqual(openApiSchema(schema, '3.0'), {
      anyOf: [
        { type: 'array', items: { type: 'object', properties: {} } },
        { type: 'object', properties: {} },
      ],
    });
    const list = Type.Unsafe({
      type: ['string', 'array'],
      not: { type: 'array', contains: { not: { type: 'string' } } },
    });
    assert.deepEqual(openApiSchema(list, '3.0'), { anyOf: [{ type: 'string' }, { type: 'array' }] });
    const names = Type.String({ not: { enum: ['__proto__'] } });
    assert.deepEqual(openApiSchema(names, '3.0'), { type: 'string', not: { type: 'string', enum: ['__proto__'] } });
    assert.deepEqual(openApiSchema(schema, '3.1').allOf, [
      { not: { type: 'null' } },
      {
        if: { type: 'array' },
        then: { type: 'array', items: { type: 'object', properties: {} } },
        else: { type: 'object', properties: {} },
      },
    ]);
  });
});
