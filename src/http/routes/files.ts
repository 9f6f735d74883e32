/**
 * /files writes that carry bytes (Directus docs: Files): `POST /files` multipart (form fields, then one or more file
 * parts, each file taking the fields sent before it) or JSON (a row without content, as Directus), `PATCH
 * /files/{id}` multipart (new content) or JSON (metadata), `DELETE /files[/{id}]` (rows, then bytes). Reads and
 * batch updates are the system routes'. The bytes stream from the request to storage (engine/files/).
 */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ItemsApi } from '../../app/ports.js';
import type { FilesService } from '../../engine/files/files-service.js';
import type { IncomingFile } from '../../engine/files/incoming-file.js';
import { ContentTooLargeError } from '../../errors/catalogue.js';
import { parseQuery } from '../../request/parse-query.js';
import { emptyRecord } from '../../request/prototype-keys.js';
import { addFormField, checkFileCount, ImportFileBody, parseImportFileBody } from '../../request/upload-form.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA } from './route-answers.js';
import { parseCreateBody, parseDeleteBody, parseItemBody, type Payload } from '../../request/write-body.js';
import { sendData } from '../data-reply.js';

export interface FileRoutesDeps extends ItemsApi {
  files: FilesService;
}

export const FILE_ROUTES = {
  importUrl: {
    method: 'POST',
    url: '/files/import',
    summary: 'Import a file from a URL (http or https; private addresses are refused)',
    tags: ['Files'],
    audience: 'user',
    body: ImportFileBody,
    response: ANY_DATA,
  },
} satisfies Record<string, RouteDeclaration>;

/** Form fields a multipart upload may send before its files. */
const MAX_FIELDS = 100;

export function fileRoutes(context: FileRoutesDeps): FastifyPluginAsync {
  const { files, config } = context;
  const parseOptions = {
    queryLimitMax: config.queryLimitMax,
    maxRelationalDepth: config.maxRelationalDepth,
    maxJsonQueryDepth: config.maxJsonQueryDepth,
  };
  const query = (request: FastifyRequest) => parseQuery(request.query as Record<string, unknown>, parseOptions);
  const maxUpload = config.storage.maxUploadSize;
  /** Form fields whose text is JSON (tags, metadata...): the collection's json and csv fields. */
  const jsonField = (name: string) => {
    const type = context.schema.current.collections.service_files?.fields[name]?.type;
    return type === 'json' || type === 'csv';
  };

  /** Refuses from Content-Length an upload that cannot fit (the files, and the fields' share of MAX_PAYLOAD_SIZE). */
  const checkLength = (request: FastifyRequest) => {
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > maxUpload + config.maxPayloadSize)
      throw new ContentTooLargeError(maxUpload);
  };

  /** Each file part with the fields sent before it (the fields start again after each file, as in Directus). */
  async function* fileParts(request: FastifyRequest): AsyncGenerator<{ fields: Payload; file: IncomingFile }> {
    let fields: Payload = emptyRecord();
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        addFormField(fields, part.fieldname, part.value, jsonField(part.fieldname));
        continue;
      }
      yield { fields, file: { stream: part.file, filename: part.filename || 'file', mimetype: part.mimetype } };
      fields = emptyRecord();
    }
  }

  return async (app) => {
    await app.register(multipart, {
      // One byte over the limit reaches the upload guard, which fails the stream with 413 and drops what was stored.
      limits: { fileSize: maxUpload + 1, fields: MAX_FIELDS, fieldSize: config.maxPayloadSize, parts: 1000 },
    });

    app.post('/files', async (request, reply) => {
      if (!request.isMultipart()) {
        const target = await files.open(request.accountability, 'create', false);
        const { many, items } = parseCreateBody(request.body);
        return sendData(reply, await context.writer.create(target, items, many, query(request), request.timer));
      }
      const target = await files.open(request.accountability, 'create', true);
      checkLength(request);
      const keys: string[] = [];
      for await (const { fields, file } of fileParts(request)) keys.push(await files.upload(target, fields, file));
      checkFileCount(keys.length, Infinity);
      request.timer.mark('write');
      return sendData(reply, await files.reread(target, keys, keys.length > 1, query(request)));
    });

    declareRoute(app, FILE_ROUTES.importUrl, async (request, reply) => {
      const target = await files.open(request.accountability, 'create', true);
      const { url, data } = parseImportFileBody(request.body);
      request.timer.mark('parse');
      const key = await files.importUrl(target, url, data);
      return sendData(reply, await files.reread(target, [key], false, query(request)));
    });

    app.patch<{ Params: { pk: string } }>('/files/:pk', async (request, reply) => {
      const { pk } = request.params;
      if (!request.isMultipart()) {
        const target = await files.open(request.accountability, 'update', false);
        const payload = parseItemBody(request.body);
        return sendData(reply, await context.writer.updateOne(target, pk, payload, query(request), request.timer));
      }
      const target = await files.open(request.accountability, 'update', true);
      checkLength(request);
      let count = 0;
      for await (const { fields, file } of fileParts(request)) {
        checkFileCount(++count, 1);
        await files.replace(target, pk, fields, file);
      }
      checkFileCount(count, 1);
      return sendData(reply, await files.reread(target, [pk], false, query(request)));
    });

    app.delete('/files', async (request, reply) => {
      const target = await files.open(request.accountability, 'delete', false);
      await files.delete(target, parseDeleteBody(request.body, parseOptions));
      return reply.code(204).send();
    });

    app.delete<{ Params: { pk: string } }>('/files/:pk', async (request, reply) => {
      const target = await files.open(request.accountability, 'delete', false);
      await files.delete(target, { kind: 'keys', keys: [request.params.pk] });
      return reply.code(204).send();
    });
  };
}
