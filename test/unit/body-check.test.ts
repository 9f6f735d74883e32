/**
 * The one formatter from schema failures to coded errors, and a guard that bodies are not validated by hand again:
 * routes and the body modules state shapes as schemas and leave the throwing to body-check.ts.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { InvalidPayloadError, InvalidQueryError } from '../../src/errors/catalogue.js';
import { checkBody, IfArray, Nullable, OneOf, Present } from '../../src/request/body-check.js';

const SRC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../src');

function reason(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as InvalidPayloadError).extensions.reason as string;
  }
  return 'passed';
}

describe('body schemas', () => {
  it('labels the failing value as Joi does', () => {
    const schema = Type.Object({
      meta: Type.Optional(Type.Object({ icon: Type.Optional(Type.String()) })),
      keys: Type.Optional(Type.Array(Type.Number())),
    });
    assert.equal(
      reason(() => checkBody(schema, 1)),
      '"value" must be an object',
    );
    assert.equal(
      reason(() => checkBody(schema, { meta: { icon: 1 } })),
      '"meta.icon" must be a string',
    );
    assert.equal(
      reason(() => checkBody(schema, { keys: [1, 'a'] })),
      '"keys[1]" must be a number',
    );
    assert.equal(
      reason(() => checkBody(Type.Object({ data: Type.Object({}) }), {})),
      '"data" is required',
    );
    assert.equal(
      reason(() => checkBody(Type.Object({}, { additionalProperties: false }), { extra: 1 })),
      '"extra" is not allowed',
    );
  });

  it('uses a node’s own message, per keyword, with {path}, {value} and {index}', () => {
    const name = Type.String({
      pattern: '^[a-z]+$',
      errorMessage: { type: 'Name is required', pattern: 'Name "{value}" is invalid' },
    });
    assert.equal(
      reason(() => checkBody(Type.Object({ name }), { name: 5 })),
      'Name is required',
    );
    assert.equal(
      reason(() => checkBody(Type.Object({ name }), { name: 'A1' })),
      'Name "A1" is invalid',
    );
    // A required key takes the message of the key's own schema.
    assert.equal(
      reason(() => checkBody(Type.Object({ name: Type.String({ errorMessage: '"{path}" please' }) }), {})),
      '"name" please',
    );
    const list = Type.Array(Type.Object({ id: Type.String() }, { errorMessage: 'entry {index} is wrong' }));
    assert.equal(
      reason(() => checkBody(list, [{ id: 'a' }, null])),
      'entry 1 is wrong',
    );
  });

  it('reports the first failing step of an intersection, in order', () => {
    const schema = Type.Intersect([Type.Object({ b: Type.String() }), Type.Object({ a: Type.String() })]);
    assert.equal(
      reason(() => checkBody(schema, {})),
      '"b" is required',
    );
    assert.equal(
      reason(() => checkBody(schema, { b: 'x' })),
      '"a" is required',
    );
  });

  it('names the rule of anyOf and the branch of if/then/else', () => {
    const oneOf = Type.Unsafe({ anyOf: [{ required: ['a'] }, { required: ['b'] }], errorMessage: 'a or b' });
    assert.equal(
      reason(() => checkBody(oneOf, {})),
      'a or b',
    );
    const items = IfArray(
      Type.Array(Type.Object({}, { errorMessage: '"{path}" must be of type object' })),
      Type.Object({}, { errorMessage: 'not an object' }),
    );
    assert.equal(
      reason(() => checkBody(items, [{}, 1])),
      '"[1]" must be of type object',
    );
    assert.equal(
      reason(() => checkBody(items, 'x')),
      'not an object',
    );
  });

  it('reads no body as null, accepts null where a schema does, and leaves values unchanged', () => {
    const body = Type.Intersect([Present('required!'), Type.Object({})]);
    assert.equal(
      reason(() => checkBody(body, undefined)),
      'required!',
    );
    assert.equal(checkBody(Nullable(Type.Object({})), undefined), null);
    const value = { n: '1', extra: { deep: true } };
    // No coercion, no defaults, no removal of unknown keys.
    assert.equal(checkBody(Type.Object({ n: Type.String() }), value), value);
    assert.deepEqual(value, { n: '1', extra: { deep: true } });
    assert.equal(
      reason(() => checkBody(Type.Object({ n: Type.Number() }), value)),
      '"n" must be a number',
    );
    assert.equal(
      reason(() => checkBody(OneOf(['a', 'b'] as const), 'c')),
      '"value" must be one of a, b',
    );
  });

  it('throws the coded error the caller asks for', () => {
    assert.throws(() => checkBody(Type.String(), 1), InvalidPayloadError);
    assert.throws(
      () => checkBody(Type.String(), 1, (message) => new InvalidQueryError(message)),
      (error: unknown) => error instanceof InvalidQueryError && error.code === 'INVALID_QUERY',
    );
  });

  it('leaves no hand validation of bodies in routes and body modules', () => {
    const routes = readdirSync(path.join(SRC, 'http/routes')).map((file) => `http/routes/${file}`);
    // The import route's remaining refusals are about the upload (no file, media type), not a JSON body's shape;
    // a YAML body that does not parse is refused by its parser, as bad JSON is.
    for (const file of routes.filter((f) => !f.endsWith('import.ts'))) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      assert.ok(!/new InvalidPayloadError\((?!`Invalid YAML)/.test(text), `${file} refuses a body by hand`);
      assert.ok(
        !/typeof (request\.)?body|Array\.isArray\((request\.)?body\)/.test(text),
        `${file} inspects a body by hand`,
      );
    }
    const bodyModules = [
      'request/write-body.ts',
      'request/search-body.ts',
      'request/auth-bodies.ts',
      'schema-admin/input/input-checks.ts',
    ];
    for (const file of bodyModules) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      assert.ok(!/\bthrow\b/.test(text), `${file} throws by hand`);
      assert.ok(/from '((\.\.\/)+request|\.)\/body-check\.js'/.test(text), `${file} does not use body-check.ts`);
    }
    // The schema inputs still throw, but only for rules a schema cannot state (names given by the URL, type names).
    for (const file of [
      'schema-admin/input/field-input.ts',
      'schema-admin/input/collection-input.ts',
      'schema-admin/input/relation-input.ts',
      'schema-admin/sync/diff.ts',
      'request/graphql-body.ts',
    ]) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      assert.ok(
        !/new InvalidPayloadError\([^)]*(must be an object|must be a string|must be an array|must be a boolean|is required)/.test(
          text,
        ),
        `${file} checks a type by hand`,
      );
      assert.ok(/checkBody\(/.test(text), `${file} does not use checkBody`);
    }
  });
});
