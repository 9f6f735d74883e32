/**
 * Paths of one collection the caller may read or write: `/items/<c>` and `/items/<c>/{id}` (the system collections at
 * `/users`, `/roles`, ... and `/settings`), with only the operations the caller may perform (a collection it may
 * only create in has its POST, answered 204: nothing written can be read back). Operation ids follow
 * Directus's specification (`readItemsArticles`, `readSingleItemsArticles`, `createItemsArticles`, ...).
 */
import type { CollectionView } from '../graphql/access-view.js';
import { errorResponses, EXPORT_MEDIA_TYPES, LIST_PARAMETERS, ONE_PARAMETERS, paramRef } from './common-components.js';
import { keySchema } from './collection-schemas.js';
import { ref, type JsonSchema } from './json-schema.js';

export interface CollectionPaths {
  view: CollectionView;
  /** `/items/articles`, `/users`, `/settings`. */
  base: string;
  singleton: boolean;
  /** Component names of the read schema and of the create and update bodies. */
  component: string;
  createInput: string;
  updateInput: string;
  tag: string;
}

export function json(schema: JsonSchema): JsonSchema {
  return { 'application/json': { schema } };
}

export function dataResponse(description: string, data: JsonSchema, meta = false): JsonSchema {
  const properties: Record<string, JsonSchema> = { data };
  if (meta)
    properties.meta = {
      type: 'object',
      properties: { total_count: { type: 'integer' }, filter_count: { type: 'integer' } },
    };
  return { description, content: json({ type: 'object', properties }) };
}

/** The items, or with `export` a download in another format. */
function listResponse(list: JsonSchema): JsonSchema {
  const response = dataResponse('The items (with `export`: a download in that format)', list, true);
  const content = response.content as Record<string, JsonSchema>;
  for (const type of EXPORT_MEDIA_TYPES) content[type] = { schema: { type: 'string' } };
  return response;
}

const NO_CONTENT = { description: 'Done; nothing to answer (or nothing the caller may read back).' };

/** The success answers of a write: the items read back, or 204 (always 204 where the caller may not read). */
function writeAnswers(view: CollectionView, description: string, data: JsonSchema): JsonSchema {
  return view.read ? { '200': dataResponse(description, data), '204': NO_CONTENT } : { '204': NO_CONTENT };
}

/** `POST /utils/import/<c>` for a collection the caller may create items in (when the server has the route). */
export function importPath(c: CollectionPaths): Record<string, JsonSchema> {
  const file = { type: 'string', format: 'binary' };
  return {
    [`/utils/import/${encodeURIComponent(c.view.collection.collection)}`]: {
      post: {
        operationId: `import${c.component}`,
        summary: `Import ${c.view.collection.collection} items from a CSV, JSON or NDJSON file`,
        description: 'All rows or none: a bad row names its line and field, and nothing is written.',
        tags: [c.tag],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file } } },
            'text/csv': { schema: file },
            'application/json': { schema: { type: 'array', items: ref(c.createInput) } },
            'application/x-ndjson': { schema: file },
          },
        },
        responses: {
          '200': dataResponse('What was imported', {
            type: 'object',
            properties: { collection: { type: 'string' }, created: { type: 'integer', description: 'Rows written.' } },
          }),
          ...errorResponses(true),
        },
      },
    },
  };
}

/** Paths keyed by OpenAPI path, each holding the operations the caller may perform. */
/**
 * POST /files also takes multipart uploads: the file's fields as form fields, then one or more `file` parts (JSON
 * creates rows without content, as in Directus).
 */
function withUpload(operation: JsonSchema, create: JsonSchema): JsonSchema {
  const upload = {
    allOf: [create, { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } }],
  };
  const requestBody = operation.requestBody as { content: Record<string, JsonSchema> };
  return {
    ...operation,
    summary:
      'Upload one or more files (multipart: form fields first, then the files), or create rows without content (JSON)',
    requestBody: { ...requestBody, content: { 'multipart/form-data': { schema: upload }, ...requestBody.content } },
  };
}

export function collectionPaths(c: CollectionPaths): Record<string, JsonSchema> {
  if (c.singleton) return singletonPaths(c);
  const { view } = c;
  const item = ref(c.component);
  const list = { type: 'array', items: item };
  const create = ref(c.createInput);
  const update = ref(c.updateInput);
  const tags = [c.tag];
  const name = c.component;
  const collectionOps: JsonSchema = {};
  const key = keySchema(view.collection);
  const keys = { type: 'array', items: key };
  if (view.read)
    collectionOps.get = {
      operationId: `read${name}`,
      summary: `List ${view.collection.collection} items`,
      description: 'With `aggregate`/`groupBy` the rows are the groups and their aggregates instead.',
      tags,
      parameters: LIST_PARAMETERS.map(paramRef),
      responses: { '200': listResponse(list), ...errorResponses(false) },
    };
  if (view.create) {
    collectionOps.post = {
      operationId: `create${name}`,
      summary: `Create one ${view.collection.collection} item (an object) or several (an array)`,
      tags,
      parameters: ONE_PARAMETERS.map(paramRef),
      requestBody: { required: true, content: json({ oneOf: [create, { type: 'array', items: create }] }) },
      responses: { ...writeAnswers(view, 'The created item(s)', { oneOf: [item, list] }), ...errorResponses(true) },
    };
    if (view.collection.collection === 'service_files')
      collectionOps.post = withUpload(collectionOps.post as JsonSchema, create);
  }
  if (view.update) {
    collectionOps.patch = {
      operationId: `update${name}`,
      summary: `Update several ${view.collection.collection} items`,
      description: 'An array of items holding their keys, `{keys, data}`, or `{query, data}`.',
      tags,
      parameters: ONE_PARAMETERS.map(paramRef),
      requestBody: {
        required: true,
        content: json({
          oneOf: [
            { type: 'array', items: update },
            { type: 'object', required: ['keys', 'data'], properties: { keys, data: update } },
            { type: 'object', required: ['query', 'data'], properties: { query: { type: 'object' }, data: update } },
          ],
        }),
      },
      responses: { ...writeAnswers(view, 'The updated items', list), ...errorResponses(true) },
    };
  }
  if (view.delete) {
    collectionOps.delete = {
      operationId: `delete${name}`,
      summary: `Delete several ${view.collection.collection} items`,
      description: 'An array of keys, `{keys}`, or `{query}`.',
      tags,
      requestBody: {
        required: true,
        content: json({
          oneOf: [
            keys,
            { type: 'object', required: ['keys'], properties: { keys } },
            { type: 'object', required: ['query'], properties: { query: { type: 'object' } } },
          ],
        }),
      },
      responses: { '204': { description: 'Deleted' }, ...errorResponses(true) },
    };
  }

  // A table without a key has no reads by key (and no writes: the access view allows none).
  if (!view.collection.primary) return nonEmpty({ [c.base]: collectionOps });
  return nonEmpty({ [c.base]: collectionOps, [`${c.base}/{id}`]: keyOperations(c, key) });
}

/** `<base>/{id}`: one item's read, update and delete. */
function keyOperations(c: CollectionPaths, key: JsonSchema): JsonSchema {
  const { view } = c;
  const item = ref(c.component);
  const tags = [c.tag];
  const name = c.component;
  const itemOps: JsonSchema = {};
  const id = { name: 'id', in: 'path', required: true, description: 'The item’s key.', schema: key };
  if (view.read)
    itemOps.get = {
      operationId: `readSingle${name}`,
      summary: `Read one ${view.collection.collection} item`,
      tags,
      parameters: [id, ...ONE_PARAMETERS.map(paramRef)],
      responses: { '200': dataResponse('The item', item), ...errorResponses(false) },
    };
  if (view.update) {
    itemOps.patch = {
      operationId: `updateSingle${name}`,
      summary: `Update one ${view.collection.collection} item`,
      tags,
      parameters: [id, ...ONE_PARAMETERS.map(paramRef)],
      requestBody: { required: true, content: json(ref(c.updateInput)) },
      responses: { ...writeAnswers(view, 'The item as updated', item), ...errorResponses(true) },
    };
  }
  if (view.delete) {
    itemOps.delete = {
      operationId: `deleteSingle${name}`,
      summary: `Delete one ${view.collection.collection} item`,
      tags,
      parameters: [id],
      responses: { '204': { description: 'Deleted' }, ...errorResponses(true) },
    };
  }
  return itemOps;
}

/** A singleton's one path: its read and its update (which creates it when missing). */
function singletonPaths(c: CollectionPaths): Record<string, JsonSchema> {
  const { view } = c;
  const item = ref(c.component);
  const tags = [c.tag];
  const name = c.component;
  const collectionOps: JsonSchema = {};
  if (view.read)
    collectionOps.get = {
      operationId: `read${name}`,
      summary: `Read the ${view.collection.collection} singleton`,
      tags,
      parameters: ONE_PARAMETERS.map(paramRef),
      responses: { '200': dataResponse('The item', item), ...errorResponses(false) },
    };
  if (view.update) {
    collectionOps.patch = {
      operationId: `update${name}`,
      summary: `Update the ${view.collection.collection} singleton (created when missing)`,
      tags,
      parameters: ONE_PARAMETERS.map(paramRef),
      requestBody: { required: true, content: json(ref(c.updateInput)) },
      responses: { ...writeAnswers(view, 'The item as updated', item), ...errorResponses(true) },
    };
  }
  return nonEmpty({ [c.base]: collectionOps });
}

/** The paths that hold an operation. */
function nonEmpty(paths: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(paths).filter(([, operations]) => Object.keys(operations).length > 0));
}
