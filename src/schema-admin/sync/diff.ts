/**
 * Snapshot → diff in Directus's format: `{hash, diff: {collections: [{collection, diff}], fields: [{collection,
 * field, diff}], relations: [{collection, field, related_collection, diff}]}}`, each `diff` a list of deep-diff
 * changes (`N` new, `D` deleted, `E` edited, `A` array) from the current schema to the snapshot.
 */
import deepDiff from 'deep-diff';
import { Type } from '@sinclair/typebox';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { checkBody, compileSchema } from '../../request/body-check.js';
import { prototypeKeyReason, refusedKeyPath } from '../../request/prototype-keys.js';
import { changeProblem, type Change } from './changes.js';
import {
  portableDefault,
  type Json,
  type Snapshot,
  type SnapshotCollection,
  type SnapshotField,
  type SnapshotRelation,
} from './snapshot.js';

export interface SchemaDiff {
  collections: { collection: string; diff: Change[] }[];
  fields: { collection: string; field: string; diff: Change[] }[];
  relations: { collection: string; field: string; related_collection: string | null; diff: Change[] }[];
}

export interface DiffAnswer {
  hash: string;
  diff: SchemaDiff;
}

function diffItems<T extends object>(
  current: T[],
  wanted: T[],
  key: (item: T) => string,
): { key: string; item: T; diff: Change[] }[] {
  const before = new Map(current.map((item) => [key(item), item]));
  const after = new Map(wanted.map((item) => [key(item), item]));
  const out: { key: string; item: T; diff: Change[] }[] = [];
  for (const [k, item] of after) {
    const old = before.get(k);
    if (!old) out.push({ key: k, item, diff: [{ kind: 'N', rhs: item as unknown as Json }] });
    else {
      const changes = deepDiff.diff(old as unknown as Json, item as unknown as Json) as Change[] | undefined;
      if (changes?.length) out.push({ key: k, item, diff: changes });
    }
  }
  for (const [k, item] of before)
    if (!after.has(k)) out.push({ key: k, item, diff: [{ kind: 'D', lhs: item as unknown as Json }] });
  return out;
}

/** Metadata values a row holds when it was made for a field given none (`width` is the column's default). */
const PLAIN_META: Record<string, Json> = Object.assign(Object.create(null) as Record<string, Json>, {
  interface: null,
  options: null,
  display: null,
  display_options: null,
  readonly: false,
  hidden: false,
  sort: null,
  width: 'full',
  translations: null,
  note: null,
  conditions: null,
  required: false,
  group: null,
  validation: null,
  validation_message: null,
  searchable: true,
});

/** The special flags a field of `type` may carry without them saying anything its type does not. */
const IMPLIED_SPECIAL: Record<string, string[]> = { uuid: ['uuid'], alias: ['o2m'] };

/**
 * A metadata row that says nothing beyond the field's type: the one a database without a native uuid type keeps for
 * a uuid field given no metadata (its `uuid` flag), or an o2m field's made by an apply. The same as none.
 */
function plainMeta(field: SnapshotField): boolean {
  const meta = field.meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return false;
  const special = meta.special ?? [];
  const implied = IMPLIED_SPECIAL[field.type] ?? [];
  if (!Array.isArray(special) || special.some((flag) => !implied.includes(flag as string))) return false;
  return Object.entries(meta).every(
    ([key, value]) =>
      key === 'collection' || key === 'field' || key === 'special' || !(key in PLAIN_META) || PLAIN_META[key] === value,
  );
}

/**
 * The current fields as the wanted ones would spell them: where the wanted field has no metadata and the current
 * one's says nothing (plainMeta), none; defaults of wanted fields in the portable spelling (a snapshot edited by
 * hand, or from another version, may spell them as its database does).
 */
function comparableFields(current: SnapshotField[], wanted: SnapshotField[]): [SnapshotField[], SnapshotField[]] {
  const wantedByKey = new Map(wanted.map((f) => [`${f.collection}.${f.field}`, f]));
  const now = current.map((field) => {
    const other = wantedByKey.get(`${field.collection}.${field.field}`);
    return other && other.meta === null && plainMeta(field) ? { ...field, meta: null } : field;
  });
  const want = wanted.map((field) => {
    const value = field.schema?.default_value;
    if (value === undefined || !field.schema) return field;
    const portable = portableDefault(field.type, value);
    return portable === value ? field : { ...field, schema: { ...field.schema, default_value: portable } };
  });
  return [now, want];
}

export function diffSnapshots(current: Snapshot, wanted: Snapshot): SchemaDiff {
  const [currentFields, wantedFields] = comparableFields(current.fields, wanted.fields);
  return {
    collections: diffItems<SnapshotCollection>(current.collections, wanted.collections, (c) => c.collection).map(
      ({ item, diff }) => ({ collection: item.collection, diff }),
    ),
    fields: diffItems<SnapshotField>(currentFields, wantedFields, (f) => `${f.collection}.${f.field}`).map(
      ({ item, diff }) => ({ collection: item.collection, field: item.field, diff }),
    ),
    relations: diffItems<SnapshotRelation>(
      current.relations,
      wanted.relations,
      (r) => `${r.collection}.${r.field}`,
    ).map(({ item, diff }) => ({
      collection: item.collection,
      field: item.field,
      related_collection: item.related_collection,
      diff,
    })),
  };
}

export function isEmptyDiff(diff: SchemaDiff): boolean {
  return !diff.collections.length && !diff.fields.length && !diff.relations.length;
}

/**
 * `key: [{name: string, ...}]`, the names checked one after the other. Arrays pass the type (they are objects to
 * JavaScript) and read as lacking the first name.
 */
const Named = (names: string[]) =>
  Type.Array(
    Type.Unsafe({
      type: ['object', 'array'],
      not: { type: 'array' },
      allOf: names.map((name) => ({
        required: [name],
        properties: { [name]: { type: 'string', errorMessage: '"{path}" must be a string' } },
      })),
      errorMessage: { type: '"{path}" must be an object', not: `"{path}.${names[0]}" must be a string` },
    }),
  );

export const SnapshotShape = compileSchema(
  Type.Intersect(
    [
      ...['collections', 'fields', 'relations'].map((key) =>
        Type.Object({ [key]: Type.Array(Type.Unknown(), { errorMessage: '"{path}" must be an array' }) }),
      ),
      Type.Object({ collections: Named(['collection']) }),
      Type.Object({ fields: Named(['collection', 'field', 'type']) }),
      Type.Object({ relations: Named(['collection', 'field']) }),
      Type.Object({ version: Type.Number({ errorMessage: '"version" must be a number' }) }),
    ],
    { errorMessage: { type: '"collections" must be an array' } },
  ),
);

const SnapshotBody = compileSchema(Type.Object({}, { errorMessage: 'A snapshot must be an object' }));

/**
 * A snapshot from a request body (or its `data`): the shape checked, so that a bad file is INVALID_PAYLOAD, not a 500.
 * Its keys become the paths of the diff's changes: none may be `__proto__`, `constructor` or `prototype` (a YAML
 * body or a CLI file holds them as plain keys).
 */
export function parseSnapshot(body: unknown): Snapshot {
  const object = checkBody(SnapshotBody, body) as Record<string, unknown>;
  const data = object.data && typeof object.data === 'object' && !('collections' in object) ? object.data : object;
  const snapshot = checkBody(SnapshotShape, data) as unknown as Snapshot;
  const refused = refusedKeyPath(snapshot);
  if (refused !== null) throw new InvalidPayloadError(prototypeKeyReason(refused));
  return snapshot;
}

const entry = (key: string) => {
  const message = `"diff.${key}[{index}]" must name its collection${key === 'collections' ? '' : ' and field'} and hold a "diff" array`;
  const names = key === 'collections' ? ['collection'] : ['collection', 'field'];
  const properties = Object.fromEntries(names.map((name) => [name, Type.String({ errorMessage: message })]));
  return Type.Object(
    { ...properties, diff: Type.Array(Type.Unknown(), { errorMessage: message }) },
    { errorMessage: message },
  );
};

const DiffAnswerBody = compileSchema(Type.Object({}, { errorMessage: 'Body must be {hash, diff}' }));

export const DiffAnswerShape = compileSchema(
  Type.Intersect(
    [
      Type.Object({ hash: Type.String({ errorMessage: '"hash" is required' }) }),
      Type.Object({ diff: Type.Unsafe({ type: ['object', 'array'], errorMessage: '"diff" is required' }) }),
      ...['collections', 'fields', 'relations'].map((key) =>
        Type.Object({
          diff: Type.Object(
            { [key]: Type.Array(entry(key), { errorMessage: `"diff.${key}" must be an array` }) },
            { errorMessage: { type: `"diff.${key}" must be an array` } },
          ),
        }),
      ),
    ],
    { errorMessage: { type: '"hash" is required' } },
  ),
);

/** A diff from a request body (`{hash, diff}`, or its `data`), shape checked, every change checked (changes.ts). */
export function parseDiffAnswer(body: unknown): DiffAnswer {
  const object = checkBody(DiffAnswerBody, body) as Record<string, unknown>;
  const data = object.data && typeof object.data === 'object' && !('hash' in object) ? object.data : object;
  const { hash, diff } = checkBody(DiffAnswerShape, data) as { hash: string; diff: SchemaDiff };
  for (const key of ['collections', 'fields', 'relations'] as const) {
    for (const [i, entry] of diff[key].entries()) {
      for (const [j, change] of entry.diff.entries()) {
        const problem = changeProblem(change, `diff.${key}[${i}].diff[${j}]`);
        if (problem) throw new InvalidPayloadError(problem);
      }
    }
  }
  return { hash, diff };
}
