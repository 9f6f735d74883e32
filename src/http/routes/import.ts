/**
 * `POST /utils/import/{collection}`: a CSV, JSON (array) or NDJSON file, sent as multipart (`file` field, as
 * Directus's app and SDK do) or as the raw body with its content type. The upload is never buffered: it is parsed
 * as it arrives and written in IMPORT_BATCH_SIZE batches inside one transaction; IMPORT_MAX_FILE_SIZE bounds it, from
 * the Content-Length before anything is read when the client sends one. An answer sent before the body was read to
 * its end closes the connection (http/request-hooks.ts).
 */
import { writeClient } from '../write-client.js';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Transform, type Readable } from 'node:stream';
import { ContentTooLargeError, InvalidPayloadError, UnsupportedMediaTypeError } from '../../errors/catalogue.js';
import { importFormatOf, importRecords, type ImportFormat } from '../../io/import-records.js';
import type { ItemsApi } from '../../app/ports.js';

const SETTING = 'IMPORT_MAX_FILE_SIZE';
/** What a multipart body may hold besides its file (boundaries, part headers, small fields) within the file limit. */
const MULTIPART_ENVELOPE = 64 * 1024;

const RAW_TYPES = [
  'application/json',
  'text/csv',
  'application/csv',
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
];

export function importRoutes(context: ItemsApi): FastifyPluginAsync {
  const limit = context.config.io.importMaxFileSize;
  return async (app) => {
    // In this plugin only: bodies stay streams, read by the import itself.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser(RAW_TYPES, (_request, payload, done) => done(null, payload));
    await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 10 } });

    app.post<{ Params: { collection: string } }>('/import/:collection', async (request, reply) => {
      const { collection } = request.params;
      const target = await context.writer.open(collection, 'create', request.accountability, {
        client: writeClient(request),
      });
      refuseAnnouncedSize(request, limit);
      let source: Readable;
      let format: ImportFormat | null;
      const mediaType = request.headers['content-type'];
      if (request.isMultipart()) {
        const file = await request.file();
        if (!file) throw new InvalidPayloadError('No file was sent');
        format = importFormatOf(file.mimetype, file.filename);
        if (!format) throw new UnsupportedMediaTypeError(file.mimetype, 'multipart file');
        // busboy stops at the limit and marks the stream truncated; the import fails when it sees that.
        source = file.file;
      } else {
        format = importFormatOf(mediaType);
        if (!format || !(request.body && typeof (request.body as Readable).pipe === 'function'))
          throw new UnsupportedMediaTypeError(String(mediaType ?? ''), 'request body');
        const body = request.body as Readable;
        source = body.pipe(byteLimit(limit));
        body.on('error', (error) => source.destroy(error));
        // The parser reads the error from the stream's state; it may be raised before the parser listens.
        source.on('error', () => {});
      }
      const truncated = () => (source as Readable & { truncated?: boolean }).truncated === true;
      const created = await context.writer.importRecords(
        target,
        untruncated(importRecords(format, source), truncated, limit),
        context.config.io.importBatchSize,
      );
      return reply.type('application/json; charset=utf-8').send({ data: { collection, created } });
    });
  };
}

/** A body whose Content-Length is over the limit is refused before a byte of it is read. */
function refuseAnnouncedSize(request: FastifyRequest, limit: number): void {
  const announced = Number(request.headers['content-length']);
  const allowed = request.isMultipart() ? limit + MULTIPART_ENVELOPE : limit;
  if (Number.isFinite(announced) && announced > allowed) throw new ContentTooLargeError(limit, SETTING);
}

/** The records, then 413 CONTENT_TOO_LARGE if the upload was cut at its limit (before anything is committed). */
async function* untruncated<T>(records: AsyncIterable<T>, truncated: () => boolean, limit: number): AsyncGenerator<T> {
  for await (const record of records) {
    if (truncated()) throw new ContentTooLargeError(limit, SETTING);
    yield record;
  }
  if (truncated()) throw new ContentTooLargeError(limit, SETTING);
}

/** Passes bytes through until `limit`, then fails with 413 CONTENT_TOO_LARGE. */
function byteLimit(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) callback(new ContentTooLargeError(limit, SETTING));
      else callback(null, chunk);
    },
  });
}
