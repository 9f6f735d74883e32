/**
 * /files writes that carry bytes (Directus docs: Files): `POST /files` multipart (form fields, then one or more file
 * parts, each file taking the fields sent before it) or JSON (a row without content, as Directus), `PATCH
 * /files/{id}` multipart (new content) or JSON (metadata), `DELETE /files[/{id}]` (rows, then bytes). Reads and
 * batch updates are the system routes'. The bytes stream from the request to storage (engine/files/).
 */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ItemsApi } from '../../app/ports.js';
import type { FilesService, IncomingFile } from '../../engine/files/files-service.js';
import { ContentTooLargeError, InvalidPayloadError } from '../../errors/catalogue.js';
import { parseQuery } from '../../request/parse-query.js';
import { isPrototypeKey, emptyRecord } from '../../request/prototype-keys.js';
import { parseCreateBody, parseDeleteBody, parseItemBody, type Payload } from '../../request/write-body.js';
import { sendData } from '../data-reply.js';

export interface FileRoutesDeps extends ItemsApi {
  files: FilesService;
}

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
        if (isPrototypeKey(part.fieldname)) throw new InvalidPayloadError(`"${part.fieldname}" is not a field name`);
        fields[part.fieldname] = formValue(part.value);
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
      if (keys.length === 0) throw new InvalidPayloadError('No file was sent');
      request.timer.mark('write');
      return sendData(reply, await files.reread(target, keys, keys.length > 1, query(request)));
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
      let replaced = false;
      for await (const { fields, file } of fileParts(request)) {
        if (replaced) throw new InvalidPayloadError('Only one file can replace a file');
        await files.replace(target, pk, fields, file);
        replaced = true;
      }
      if (!replaced) throw new InvalidPayloadError('No file was sent');
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

/** A form value: JSON for what reads as a JSON array or object (tags, metadata, location), else the text. */
function formValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if ((text.startsWith('[') && text.endsWith(']')) || (text.startsWith('{') && text.endsWith('}'))) {
    try {
      return JSON.parse(text);
    } catch {
      return value;
    }
  }
  return value;
}
