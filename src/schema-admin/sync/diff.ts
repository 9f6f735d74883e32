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
import type { Json, Snapshot, SnapshotCollection, SnapshotField, SnapshotRelation } from './snapshot.js';

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

export function diffSnapshots(current: Snapshot, wanted: Snapshot): SchemaDiff {
  return {
    collections: diffItems<SnapshotCollection>(current.collections, wanted.collections, (c) => c.collection).map(
      ({ item, diff }) => ({ collection: item.collection, diff }),
    ),
    fields: diffItems<SnapshotField>(current.fields, wanted.fields, (f) => `${f.collection}.${f.field}`).map(
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
