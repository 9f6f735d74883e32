/**
 * Compiled reads by request shape: the same read (collection, Query IR, the caller's permission set and identity,
 * read options) under the same schema version gives the same SQL, so the planner and the compiler run once per
 * shape and the statement is reused. Two keys find an entry:
 *
 * - the exact key, with the query's values in it (any read that is planned from nothing but its key);
 * - the shape key, with the values taken out (filter values, search, limit, offset, deep limits): requests that
 *   differ only in those values share one statement, their values becoming its parameters. Where the database's
 *   limits are written into the SQL (SqlDialect.literalLimits) they stay in the shape key. A value stands in the
 *   shape key by its class (a positive integer, a digit string, a plain word), or as itself where it is anything
 *   else (dates, negative numbers, booleans, text with punctuation: values whose content may decide the SQL).
 *   A shape is only kept once a second compile with other values of the same classes gave the same SQL text and
 *   every parameter that moved maps from one value by a known rule (as is, as number, lower case, LIKE pattern);
 *   otherwise it is remembered as unshareable and such reads fall back to the exact key.
 *
 * Nothing that moves by itself is cached: a read whose query or rules name `$NOW` (its value changes every
 * request) or `$CURRENT_USER.<field>`-style paths (loaded from the database per request) is always planned afresh.
 * A schema change gives a new schema version, a permissions change new permission-set objects, so stale entries
 * are never hit and simply age out of the LRU.
 */
import { createHash } from 'node:crypto';
import { Cache } from '../../cache/cache.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { PermissionSet } from '../../permissions/permission-store.js';
import type { DeepQuery, FilterNode, FilterValue, Query } from '../../request/query.js';

export interface CachedRead {
  sql: string;
  params: unknown[];
  /** A name for a server-side prepared statement of `sql` (see `statementName`), where one was given. */
  name?: string;
  /** What the response needs from the plan. */
  primary: string | null;
  totalCount: boolean;
  filterCount: boolean;
  /** The collections the plan reads from (plan/read-reach.ts): a cached answer's tags. */
  reach: readonly string[];
}

/** How a parameter of a shared statement comes from one value of the request. */
type Mapping =
  'same' | 'number' | 'lower' | 'contains' | 'starts' | 'ends' | 'lowerContains' | 'lowerStarts' | 'lowerEnds';

const MAPPINGS: Record<Mapping, (value: unknown) => unknown> = {
  same: (v) => v,
  number: (v) => Number(v),
  lower: (v) => String(v).toLowerCase(),
  contains: (v) => `%${v}%`,
  starts: (v) => `${v}%`,
  ends: (v) => `%${v}`,
  lowerContains: (v) => `%${String(v).toLowerCase()}%`,
  lowerStarts: (v) => `${String(v).toLowerCase()}%`,
  lowerEnds: (v) => `%${String(v).toLowerCase()}`,
};

type Parameter = { value: unknown } | { slot: number; mapping: Mapping };

interface SharedRead extends Omit<CachedRead, 'params'> {
  parameters: Parameter[];
}

/** An entry of the shape key: the shared statement, or `false` for a shape whose values decide its SQL. */
type ShapeEntry = SharedRead | false;

/** Variables whose value depends on the moment or on a row read per request. */
const MOVING = /\$(NOW|CURRENT_(USER|ROLE)\.)/;

/** Positive integers up to 9 digits (no integer-field range check, no LIMIT/offset bound can tell them apart). */
const MAX_CLASS_INTEGER = 999_999_999;
const DIGITS = /^[1-9]\d{0,8}$/;
/** A plain word: letters, digits and inner spaces, starting with a letter; nothing a coercion or LIKE escape reads. */
const WORD = /^[A-Za-z](?:[A-Za-z0-9 ]{0,198}[A-Za-z0-9])?$/;
const WORD_MEANINGS = /^(true|false|null|nan|infinity|undefined)$/i;

type ValueClass = 'int' | 'digits' | 'word';

function valueClass(value: unknown): ValueClass | null {
  if (typeof value === 'number')
    return Number.isInteger(value) && value > 0 && value <= MAX_CLASS_INTEGER ? 'int' : null;
  if (typeof value !== 'string') return null;
  if (DIGITS.test(value)) return 'digits';
  return WORD.test(value) && !WORD_MEANINGS.test(value) ? 'word' : null;
}

/** Another value of the same class, different for every slot (so each moved parameter points at one slot). */
function otherValue(value: unknown, slot: number, kind: ValueClass): unknown {
  if (kind === 'int') return (value as number) + 1 + slot;
  if (kind === 'digits') return String(Number(value) + 1 + slot);
  // Upper case, so that a lower-cased parameter tells itself apart from one taken as is.
  return `${value}Q${slot.toString(36)}`;
}

/**
 * The query with each replaceable value passed through `map` (in a fixed order: the slots). With `keepLimits` (a
 * database whose limits are written into the SQL) limits are not replaced: they stay in the shape key as they are.
 */
function mapValues(query: Query, map: (value: unknown) => unknown, keepLimits: boolean): Query {
  const scalar = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? map(value) : value);
  const filter = (node: FilterNode): FilterNode => {
    if (node.type === 'logical') return { ...node, children: node.children.map(filter) };
    if (node.type === 'relation') return { ...node, filter: filter(node.filter) };
    return { ...node, value: (Array.isArray(node.value) ? node.value.map(scalar) : scalar(node.value)) as FilterValue };
  };
  const level = <T extends Query | DeepQuery>(q: T): T => {
    const out: T = { ...q };
    if (q.filter) out.filter = filter(q.filter);
    if (q.search !== undefined) out.search = scalar(q.search) as string;
    if (q.limit !== undefined && !keepLimits) out.limit = scalar(q.limit) as number;
    if (q.offset !== undefined) out.offset = scalar(q.offset) as number;
    if (q.page !== undefined) out.page = scalar(q.page) as number;
    if (q.deep) out.deep = Object.fromEntries(Object.entries(q.deep).map(([k, d]) => [k, level(d)]));
    return out;
  };
  return level(query);
}

export interface Lookup {
  read: CachedRead | undefined;
  /** Where a compiled read of this request is kept (null: planned every time). */
  exact: string | null;
  shape: { key: string; values: unknown[]; other: Query } | null;
}

/** The JSON text of frozen queries (a repeated query string's, see http/query-string.ts), made once. */
const texts = new WeakMap<Query, string>();

function queryText(query: Query): string {
  let text = texts.get(query);
  if (text === undefined) {
    text = JSON.stringify(query);
    if (Object.isFrozen(query)) texts.set(query, text);
  }
  return text;
}

/** Values taken out of one query at most (beyond, the read is cached by its exact key only). */
const MAX_SLOTS = 64;

/** Server-side prepared statements are named only for this many distinct statements (each connection keeps them). */
const NAMED_STATEMENTS_MAX = 2000;

export class StatementCache {
  private readonly entries: Cache<string, CachedRead>;
  private readonly shapes: Cache<string, ShapeEntry>;
  private readonly names = new Map<string, string>();
  private readonly sets = new WeakMap<PermissionSet, string>();
  private nextSet = 0;

  /** `literalLimits`: the database's limits are written into the SQL (SqlDialect.literalLimits). */
  constructor(
    size: number,
    private readonly literalLimits = false,
  ) {
    this.entries = new Cache('statements', { max: size });
    this.shapes = new Cache('statement-shapes', { max: size });
  }

  /** The exact cache key of a read (its values in it), or null when it must be planned every time. */
  key(
    schemaVersion: number,
    collection: string,
    query: Query,
    accountability: Accountability,
    permissions: PermissionSet | null,
    options: string,
  ): string | null {
    const text = queryText(query);
    const scope = this.scope(schemaVersion, collection, text, accountability, permissions, options);
    return scope === null ? null : `${scope}\u0000${text}`;
  }

  /** A compiled read for this request, from its exact key or its shape; what to remember it under when there is none. */
  find(
    schemaVersion: number,
    collection: string,
    query: Query,
    accountability: Accountability,
    permissions: PermissionSet | null,
    options: string,
  ): Lookup {
    const text = queryText(query);
    const scope = this.scope(schemaVersion, collection, text, accountability, permissions, options);
    if (scope === null) return { read: undefined, exact: null, shape: null };
    const exact = `${scope}\u0000${text}`;
    const hit = this.entries.get(exact);
    if (hit) return { read: hit, exact, shape: null };
    const values: unknown[] = [];
    const classes: (ValueClass | null)[] = [];
    const shaped = mapValues(
      query,
      (value) => {
        const kind = valueClass(value);
        if (kind === null) return value;
        values.push(value);
        classes.push(kind);
        return { '\u0001': kind };
      },
      this.literalLimits,
    );
    // Long value lists (an `_in` of thousands of keys) are no shape worth sharing, and matching each parameter
    // against each value would cost their product: such reads keep their exact key.
    if (values.length === 0 || values.length > MAX_SLOTS) return { read: undefined, exact, shape: null };
    const key = `${scope}\u0000${JSON.stringify(shaped)}`;
    const entry = this.shapes.get(key);
    if (entry === false) return { read: undefined, exact, shape: null };
    if (entry) {
      const params = entry.parameters.map((p) => ('slot' in p ? MAPPINGS[p.mapping](values[p.slot]) : p.value));
      return {
        read: {
          sql: entry.sql,
          params,
          name: entry.name,
          primary: entry.primary,
          totalCount: entry.totalCount,
          filterCount: entry.filterCount,
          reach: entry.reach,
        },
        exact,
        shape: null,
      };
    }
    let slot = 0;
    const other = mapValues(
      query,
      (value) => (valueClass(value) === null ? value : otherValue(value, slot, classes[slot++]!)),
      this.literalLimits,
    );
    return { read: undefined, exact, shape: { key, values, other } };
  }

  /**
   * Keeps a read compiled for `lookup`'s request. `compileOther` compiles the same request with the other values
   * of its shape (it may throw: such a shape is not shared).
   */
  remember(lookup: Lookup, read: CachedRead, compileOther: (query: Query) => CachedRead): void {
    if (lookup.exact === null) return;
    read.name = this.statementName(read.sql);
    this.entries.set(lookup.exact, read);
    const shape = lookup.shape;
    if (!shape) return;
    let other: CachedRead | null = null;
    try {
      other = compileOther(shape.other);
    } catch {
      other = null;
    }
    const parameters = other
      ? sharedParameters(read.params, other.params, shape.values, otherValues(shape, this.literalLimits))
      : null;
    if (!other || other.sql !== read.sql || !parameters) {
      this.shapes.set(shape.key, false);
      return;
    }
    this.shapes.set(shape.key, {
      sql: read.sql,
      name: read.name,
      primary: read.primary,
      totalCount: read.totalCount,
      filterCount: read.filterCount,
      reach: read.reach,
      parameters,
    });
  }

  /**
   * A stable name for a statement text (a hash of it: the same name on every connection, never for two texts), for
   * drivers that keep prepared statements per connection; none once NAMED_STATEMENTS_MAX texts are named.
   */
  private statementName(sql: string): string | undefined {
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < NAMED_STATEMENTS_MAX) {
      name = `strata_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  /** What besides the query decides a read: schema version, collection, options, the caller where rules name it. */
  private scope(
    schemaVersion: number,
    collection: string,
    text: string,
    accountability: Accountability,
    permissions: PermissionSet | null,
    options: string,
  ): string | null {
    if (MOVING.test(text)) return null;
    let caller = 'admin';
    if (permissions) {
      const set = this.setKey(permissions);
      if (set === null) return null;
      // Rules may name the caller ($CURRENT_USER, $CURRENT_ROLE, $CURRENT_ROLES): their values are in the key.
      caller = `${set}\u0001${accountability.user}\u0001${accountability.role}\u0001${accountability.roles.join(',')}\u0001${accountability.app}`;
    } else if (text.includes('$CURRENT')) {
      caller = `admin\u0001${accountability.user}\u0001${accountability.role}\u0001${accountability.roles.join(',')}`;
    }
    return `${schemaVersion}\u0000${collection}\u0000${options}\u0000${caller}`;
  }

  /** A short id per permission-set object; null for sets whose rules move ($NOW, per-request paths). */
  private setKey(permissions: PermissionSet): string | null {
    let id = this.sets.get(permissions);
    if (id === undefined) {
      id =
        permissions.dynamicPaths.length || MOVING.test(JSON.stringify(permissions.rules)) ? '' : `p${this.nextSet++}`;
      this.sets.set(permissions, id);
    }
    return id || null;
  }
}

/** The values of the other compile, slot by slot (as `find` made them). */
function otherValues(shape: NonNullable<Lookup['shape']>, keepLimits: boolean): unknown[] {
  const values: unknown[] = [];
  mapValues(
    shape.other,
    (value) => {
      if (valueClass(value) !== null) values.push(value);
      return value;
    },
    keepLimits,
  );
  return values;
}

/**
 * Each parameter as a constant (the same in both compiles) or as one slot's value through one mapping (both
 * compiles agree); null when a parameter moved in a way no single value explains.
 */
function sharedParameters(
  first: unknown[],
  second: unknown[],
  firstValues: unknown[],
  secondValues: unknown[],
): Parameter[] | null {
  if (first.length !== second.length || firstValues.length !== secondValues.length) return null;
  const parameters: Parameter[] = [];
  for (let i = 0; i < first.length; i++) {
    const a = first[i];
    const b = second[i];
    if (Object.is(a, b)) {
      parameters.push({ value: a });
      continue;
    }
    let found: Parameter | null = null;
    for (let slot = 0; slot < firstValues.length && !found; slot++) {
      for (const mapping of Object.keys(MAPPINGS) as Mapping[]) {
        if (Object.is(MAPPINGS[mapping](firstValues[slot]), a) && Object.is(MAPPINGS[mapping](secondValues[slot]), b)) {
          found = { slot, mapping };
          break;
        }
      }
    }
    if (!found) return null;
    parameters.push(found);
  }
  return parameters;
}
