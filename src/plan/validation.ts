/**
 * Item validation before any SQL runs (Directus docs: Errors): required fields on create, null into non-nullable fields,
 * and the fields' `meta.validation` rules (filter objects evaluated against the payload). Every failure is one
 * FAILED_VALIDATION error; the planner answers them all together.
 */
import { FailedValidationError, type ServiceError } from '../errors/catalogue.js';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';

/** Specials that give a value on create, so the column is not required in the payload (Directus GENERATE_SPECIAL). */
const GENERATING_SPECIALS = ['uuid', 'date-created', 'user-created', 'role-created'];

/** Whether a create must name this field: NOT NULL without default and without a generating special, or meta.required. */
export function isRequired(field: FieldOverview): boolean {
  if (!field.schema || field.schema.is_generated) return false;
  if (field.meta?.required) return true;
  if (field.nullable || field.schema.has_auto_increment || field.schema.default_value !== null) return false;
  return !field.special.some((s) => GENERATING_SPECIALS.includes(s) && (s !== 'uuid' || field.primaryKey));
}

/** Whether null may not be written into this field. */
export function refusesNull(field: FieldOverview): boolean {
  return Boolean(field.schema) && (!field.nullable || field.meta?.required === true);
}

export function requiredError(field: string, path: (string | number)[]): ServiceError {
  return new FailedValidationError(field, path, 'required', 'Value is required.');
}

export function nullError(field: string, path: (string | number)[]): ServiceError {
  return new FailedValidationError(field, path, 'nnull', "Value can't be null.");
}

type Rule = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `meta.validation` rules of the payload's fields, evaluated against the payload. */
export function ruleErrors(
  collection: CollectionOverview,
  payload: Record<string, unknown>,
  path: (string | number)[],
): ServiceError[] {
  const errors: ServiceError[] = [];
  for (const name of Object.keys(payload)) {
    const field = collection.fields[name];
    const rule = field?.meta?.validation;
    if (!field || !isObject(rule)) continue;
    for (const failure of evaluate(rule, payload)) {
      const detail = field.meta?.validation_message ?? failure.detail;
      errors.push(new FailedValidationError(failure.field, path, failure.type, detail, failure.extra));
    }
  }
  return errors;
}

interface RuleFailure {
  field: string;
  type: string;
  detail: string;
  extra: Record<string, unknown>;
}

/** A filter object against a payload: the failing conditions (`_or` fails only when every branch fails). */
export function evaluate(rule: Rule, payload: Record<string, unknown>): RuleFailure[] {
  const failures: RuleFailure[] = [];
  for (const [key, value] of Object.entries(rule)) {
    if (key === '_and' && Array.isArray(value)) {
      for (const child of value) if (isObject(child)) failures.push(...evaluate(child, payload));
    } else if (key === '_or' && Array.isArray(value)) {
      const branches = value.filter(isObject).map((child) => evaluate(child, payload));
      if (branches.length > 0 && branches.every((b) => b.length > 0)) failures.push(...branches.flat());
    } else if (isObject(value)) {
      const operators = Object.entries(value).filter(([op]) => op.startsWith('_'));
      if (operators.length === 0) {
        // A relational path: checked against the nested object when the payload holds one.
        if (isObject(payload[key])) failures.push(...evaluate(value, payload[key] as Record<string, unknown>));
        continue;
      }
      for (const [operator, expected] of operators) {
        const failure = check(key, operator, expected, payload);
        if (failure) failures.push(failure);
      }
    }
  }
  return failures;
}

const same = (a: unknown, b: unknown) =>
  a === b || (a !== null && b !== null && a !== undefined && b !== undefined && String(a) === String(b));

function comparable(value: unknown): number | string | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : time;
}

function compare(a: unknown, b: unknown): number | null {
  const x = comparable(a);
  const y = comparable(b);
  if (x === null || y === null || typeof x !== typeof y) return null;
  return x < y ? -1 : x > y ? 1 : 0;
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** A rule's pattern, `/.../flags` or bare; null when it does not compile. */
export function regexOf(pattern: string): RegExp | null {
  const wrapped = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  try {
    return wrapped ? new RegExp(wrapped[1]!, wrapped[2]) : new RegExp(pattern);
  } catch {
    return null;
  }
}

type Fail = (detail: string, extra?: Record<string, unknown>) => RuleFailure;

/** `_lt`, `_lte`, `_gt`, `_gte`. */
function checkOrder(operator: string, value: unknown, expected: unknown, fail: Fail): RuleFailure | null {
  const order = compare(value, expected);
  const ok =
    order !== null &&
    (operator === '_lt' ? order < 0 : operator === '_lte' ? order <= 0 : operator === '_gt' ? order > 0 : order >= 0);
  const words = (
    {
      _lt: 'less than',
      _lte: 'less than or equal to',
      _gt: 'greater than',
      _gte: 'greater than or equal to',
    } as Record<string, string>
  )[operator];
  return ok ? null : fail(`Value has to be ${words} ${String(expected)}.`, { valid: expected });
}

/** `_contains`, `_starts_with`, `_ends_with`, each also case-insensitive (`i`) and negated (`n`). */
function checkText(operator: string, text: string | null, expected: unknown, fail: Fail): RuleFailure | null {
  const needle = String(expected);
  const insensitive = /^_n?i/.test(operator);
  const negated = operator.startsWith('_n');
  const haystack = insensitive ? text?.toLowerCase() : text;
  const probe = insensitive ? needle.toLowerCase() : needle;
  const kind = operator.replace(/^_n?i?/, '');
  const hit =
    haystack !== null &&
    haystack !== undefined &&
    (kind === 'contains'
      ? haystack.includes(probe)
      : kind === 'starts_with'
        ? haystack.startsWith(probe)
        : haystack.endsWith(probe));
  const words = kind === 'contains' ? 'contain' : kind === 'starts_with' ? 'start with' : 'end with';
  return hit !== negated
    ? null
    : fail(`Value ${negated ? "can't" : 'has to'} ${words} "${needle}".`, { substring: expected });
}

function checkBetween(negated: boolean, value: unknown, list: unknown[], fail: Fail): RuleFailure | null {
  const [low, high] = list;
  const inside =
    compare(value, low) !== null &&
    compare(value, low)! >= 0 &&
    compare(value, high) !== null &&
    compare(value, high)! <= 0;
  return inside !== negated
    ? null
    : fail(`Value ${negated ? "can't" : 'has to'} be between ${String(low)} and ${String(high)}.`, { valid: list });
}

function check(
  field: string,
  operator: string,
  expected: unknown,
  payload: Record<string, unknown>,
): RuleFailure | null {
  const present = Object.prototype.hasOwnProperty.call(payload, field);
  const value = payload[field];
  const type = operator.slice(1);
  const fail = (detail: string, extra: Record<string, unknown> = {}): RuleFailure => ({ field, type, detail, extra });
  if (operator === '_submitted') return present || expected === false ? null : fail('Value has to be submitted.');
  // Rules apply to the values the payload holds; missing values are the `required` check's concern.
  if (!present) return null;
  const text = typeof value === 'string' ? value : value === null || value === undefined ? null : String(value);
  const list = Array.isArray(expected) ? expected : typeof expected === 'string' ? expected.split(',') : [expected];
  switch (operator) {
    case '_eq':
      return same(value, expected) ? null : fail(`Value has to be "${String(expected)}".`, { valid: expected });
    case '_neq':
      return !same(value, expected) ? null : fail(`Value can't be "${String(expected)}".`, { invalid: expected });
    case '_lt':
    case '_lte':
    case '_gt':
    case '_gte':
      return checkOrder(operator, value, expected, fail);
    case '_in':
      return list.some((v) => same(value, v))
        ? null
        : fail(`Value has to be one of ${list.join(', ')}.`, { valid: list });
    case '_nin':
      return !list.some((v) => same(value, v))
        ? null
        : fail(`Value can't be one of ${list.join(', ')}.`, { invalid: list });
    case '_null':
      return (value === null) === (expected !== false)
        ? null
        : fail(expected === false ? "Value can't be null." : 'Value has to be null.');
    case '_nnull':
      return (value !== null) === (expected !== false)
        ? null
        : fail(expected === false ? 'Value has to be null.' : "Value can't be null.");
    case '_empty':
      return isEmpty(value) === (expected !== false)
        ? null
        : fail(expected === false ? "Value can't be empty." : 'Value has to be empty.');
    case '_nempty':
      return !isEmpty(value) === (expected !== false)
        ? null
        : fail(expected === false ? 'Value has to be empty.' : "Value can't be empty.");
    case '_contains':
    case '_icontains':
    case '_ncontains':
    case '_nicontains':
    case '_starts_with':
    case '_istarts_with':
    case '_nstarts_with':
    case '_nistarts_with':
    case '_ends_with':
    case '_iends_with':
    case '_nends_with':
    case '_niends_with':
      return checkText(operator, text, expected, fail);
    case '_between':
    case '_nbetween':
      return checkBetween(operator === '_nbetween', value, list, fail);
    case '_regex': {
      const regex = typeof expected === 'string' ? regexOf(expected) : null;
      return regex && text !== null && regex.test(text)
        ? null
        : fail("Value doesn't have the correct format.", { valid: expected });
    }
    default:
      return null;
  }
}
