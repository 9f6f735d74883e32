/**
 * Request bodies (and the few query parameters that are not the query language) are checked against TypeBox
 * schemas compiled once by ajv, and a failure becomes a coded error through ONE formatter, so that every route and
 * GraphQL input answers the same way. Item values themselves are not checked here: a collection's fields are
 * dynamic, so the planner checks them against the schema overview; these schemas cover the envelopes.
 *
 * Checks run where the handler calls them, not as Fastify route schemas: Fastify validates before the preHandler
 * hook that authenticates, and Directus answers 401/403 before it looks at a body (docs/design/pipeline.md).
 *
 * The wire messages are Directus's (mostly Joi's wording). A schema node may carry `errorMessage`: one text for any
 * failure of that node, or one per ajv keyword (`{type: ..., required: ...}`); `{path}` in it is replaced by the
 * failing value's label (`value`, `keys[2]`, `meta.icon`), `{value}` by the value, `{index}` by the position in the
 * innermost array. Without one, the formatter words the failure itself.
 * Order matters when a body has several faults: `Type.Intersect([...])` (ajv's `allOf`) checks its steps in order and
 * stops at the first that fails, which is how a schema says which fault is reported.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidPayloadError, type ServiceError } from '../errors/catalogue.js';

export type ErrorMessage = string | Partial<Record<string, string>>;

declare module '@sinclair/typebox' {
  interface SchemaOptions {
    /** The wire message of a failure of this node (see the header). */
    errorMessage?: ErrorMessage;
  }
}

// verbose: errors carry the failing node, whose errorMessage the formatter reads. Types are not coerced, defaults
// not applied and nothing removed: a body is checked, never changed.
const ajv = new Ajv({ allErrors: false, verbose: true, strictTypes: false, keywords: ['errorMessage'] });
const compiled = new WeakMap<TSchema, ValidateFunction>();
/** Schemas declared by compileSchema and not compiled yet. */
const pending = new Set<TSchema>();

function validator(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    compiled.set(schema, (validate = ajv.compile(schema)));
    pending.delete(schema);
  }
  return validate;
}

/**
 * Declares a body schema; `compileBodySchemas()` compiles every declared one. A server compiles them all as it
 * starts (createApp), so that no request pays for ajv's code generation; importing a module compiles nothing (about a
 * CPU second for all of them), so that a process that only uses a few (a test, a CLI command) compiles only those,
 * on first use.
 */
export function compileSchema<T extends TSchema>(schema: T): T {
  if (!compiled.has(schema)) pending.add(schema);
  return schema;
}

/** Compiles every schema declared so far that is not compiled yet. */
export function compileBodySchemas(): void {
  for (const schema of [...pending]) validator(schema);
}

/**
 * Told of every schema a value is checked against: the proof that a route's declared schema is the one its input is
 * checked against (test/api/route-declarations.test.ts). One listener at most; null removes it.
 */
let observer: ((schema: TSchema) => void) | null = null;
export function observeChecks(listener: ((schema: TSchema) => void) | null): void {
  observer = listener;
}

/**
 * The value if it fits the schema; otherwise the coded error (INVALID_PAYLOAD unless `error` says otherwise).
 * `undefined` (no body) is checked as `null`: JSON has no undefined, and a missing body reads like a `null` one.
 */
export function checkBody<T extends TSchema>(
  schema: T,
  value: unknown,
  error: (message: string) => ServiceError = (m) => new InvalidPayloadError(m),
): Static<T> {
  observer?.(schema);
  const validate = validator(schema);
  const checked = value === undefined ? null : value;
  if (validate(checked)) return checked as Static<T>;
  throw error(errorMessage(validate.errors ?? []));
}

/** The one formatter: ajv's errors → the wire message. */
export function errorMessage(errors: readonly ErrorObject[]): string {
  // ajv lists the errors of a subschema before the keyword that holds it (anyOf, if): the last error names the rule
  // that failed as a whole, except `if`, which only says that its then/else branch failed (the error before it).
  const error = [...errors].reverse().find((e) => e.keyword !== 'if') ?? errors[0];
  if (!error) return 'Invalid payload';
  const node = error.parentSchema as
    { errorMessage?: ErrorMessage; properties?: Record<string, { errorMessage?: ErrorMessage }> } | undefined;
  let path = error.instancePath;
  let custom = pick(node?.errorMessage, error.keyword);
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    path = `${path}/${escape(missing)}`;
    custom = pick(node?.properties?.[missing]?.errorMessage, 'required') ?? custom;
  } else if (error.keyword === 'additionalProperties') {
    path = `${path}/${escape((error.params as { additionalProperty: string }).additionalProperty)}`;
  }
  const label = labelOf(path);
  if (custom !== undefined)
    return custom
      .replaceAll('{path}', label)
      .replaceAll('{value}', String(error.data))
      .replaceAll('{index}', lastIndex(path));
  return defaultMessage(error, label);
}

function pick(message: ErrorMessage | undefined, keyword: string): string | undefined {
  return typeof message === 'string' ? message : message?.[keyword];
}

function defaultMessage(error: ErrorObject, label: string): string {
  switch (error.keyword) {
    case 'required':
      return `"${label}" is required`;
    case 'additionalProperties':
      return `"${label}" is not allowed`;
    case 'type': {
      const type = String((error.params as { type: string | string[] }).type).split(',')[0];
      return `"${label}" must be ${TYPE_WORDS[type!] ?? `of type ${type}`}`;
    }
    case 'enum':
      return `"${label}" must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
    default:
      return `"${label}" is invalid`;
  }
}

const TYPE_WORDS: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  boolean: 'a boolean',
  number: 'a number',
  integer: 'an integer',
};

/** `/keys/2` → `keys[2]`, `/meta/icon` → `meta.icon`, the root → `value` (Joi's labels). */
function labelOf(pointer: string): string {
  if (pointer === '') return 'value';
  let label = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    label += /^\d+$/.test(segment) ? `[${segment}]` : label === '' ? segment : `.${segment}`;
  }
  return label;
}

/** The position in the innermost array on the path (`/diff/fields/3/diff` → 3). */
function lastIndex(pointer: string): string {
  return (
    pointer
      .split('/')
      .reverse()
      .find((segment) => /^\d+$/.test(segment)) ?? ''
  );
}

function escape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

// Shapes TypeBox has no single kind for, written as the JSON Schema ajv reads (TypeBox's Unsafe keeps the type).

/** A present body: JSON `null` (or no body at all) fails with `message`. */
export const Present = (message: string) => Type.Unsafe<unknown>({ not: { type: 'null' }, errorMessage: message });

/** A schema of one `type` that also accepts null (one type list, so a failure reads as the schema's own type). */
export function Nullable<T extends TSchema>(schema: T, options: { errorMessage?: ErrorMessage } = {}) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string') throw new TypeError('Nullable takes a schema of one type');
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], ...options });
}

/** One of the given strings (and null when `nullable`): one `enum`, one error. */
export function OneOf<const V extends readonly string[], N extends boolean = false>(
  values: V,
  options: { nullable?: N; errorMessage?: ErrorMessage; description?: string } = {},
) {
  const { nullable, errorMessage: message, description } = options;
  return Type.Unsafe<V[number] | (N extends true ? null : never)>({
    enum: nullable ? [...values, null] : [...values],
    errorMessage: message,
    ...(description ? { description } : {}),
  });
}

/** `then` when the value is an array, `otherwise` when it is not. */
export function IfArray<A extends TSchema, O extends TSchema>(then: A, otherwise: O) {
  return Type.Unsafe<Static<A> | Static<O>>({ if: { type: 'array' }, then, else: otherwise });
}
