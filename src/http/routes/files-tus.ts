/**
 * Resumable uploads (the tus 1.0 protocol, as Directus 11 has them at /files/tus when TUS_ENABLED): POST creates an
 * upload and its service_files row, PATCH appends bytes at Upload-Offset, HEAD tells the offset, DELETE terminates.
 * The protocol is @tus/server's; its parts wait in a local folder (@tus/file-store) and, once complete, go through
 * the engine's upload step into the row's storage location (engine/files/pending-files.ts). Every request needs the
 * caller's create rule on service_files, as in Directus; an upload's id is also its row's key.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileStore } from '@tus/file-store';
import { EVENTS, Server, type Upload } from '@tus/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { CorsConfig } from '../../config/cors-config.js';
import type { StorageConfig } from '../../config/storage-config.js';
import { PendingFiles } from '../../engine/files/pending-files.js';
import type { OpenedCollection } from '../../engine/write/opened-collection.js';
import { ContentTooLargeError, ServiceError } from '../../errors/catalogue.js';
import { errorBody } from '../error-handler.js';
import type { FileRoutesDeps } from './files.js';

const TUS_PATH = '/files/tus';
const TUS_METHODS = ['POST', 'PATCH', 'HEAD', 'DELETE'] as const;

/** Where parts wait: beside the first local location's files (a hidden folder), else the system's temporary folder. */
export function tusPartsFolder(storage: StorageConfig): string {
  const local = storage.locations.find((location) => location.driver === 'local');
  return local ? path.join(local.root, '.tus') : path.join(tmpdir(), 'strata-tus');
}

/** A catalogue error as the tus library answers a hook's refusal (the body Directus's errors have). */
function tusError(error: unknown): { status_code: number; body: string } {
  if (error instanceof ServiceError) return { status_code: error.status, body: errorBody(error) };
  throw error;
}

type Warn = (error: unknown, message: string) => void;

function tusServer(
  deps: FileRoutesDeps,
  pending: PendingFiles,
  opened: WeakMap<IncomingMessage, OpenedCollection>,
  warn: Warn,
) {
  const storage = deps.config.storage;
  const datastore = new FileStore({
    directory: tusPartsFolder(storage),
    expirationPeriodInMilliseconds: storage.tus.expirationMs,
  });
  const server = new Server({
    path: TUS_PATH,
    datastore,
    maxSize: storage.maxUploadSize,
    disableTerminationForFinishedUploads: true,
    // The library sets CORS headers itself (its answers bypass Fastify's hooks): the configured origins, if listed.
    ...corsOptions(deps.config.cors),
    namingFunction: () => randomUUID(),
    onUploadCreate: async (req, res, upload) => {
      try {
        await pending.create(opened.get(req)!, pendingOf(upload));
      } catch (error) {
        throw tusError(error);
      }
      return res;
    },
    onUploadFinish: async (_req, res, upload) => {
      const metadata = upload.metadata ?? {};
      const file = {
        stream: datastore.read(upload.id),
        filename: metadata.filename ?? 'file',
        mimetype: metadata.type ?? metadata.filetype ?? '',
      };
      try {
        await pending.complete(upload.id, file);
      } catch (error) {
        throw tusError(error);
      } finally {
        await datastore.remove(upload.id).catch(() => {});
      }
      return res;
    },
    onResponseError: (_req, _res, error) => {
      // The library's own size refusal, with Directus's error body and the setting named.
      if ('status_code' in error && error.status_code === 413 && !error.body.startsWith('{'))
        return tusError(new ContentTooLargeError(storage.maxUploadSize, 'FILES_MAX_UPLOAD_SIZE'));
      return undefined;
    },
  });
  server.on(EVENTS.POST_TERMINATE, (_req, _res, id: string) => {
    pending.remove(id).catch((error: unknown) => warn(error, `tus: could not remove upload ${id}`));
  });
  return server;
}

function corsOptions(cors: CorsConfig): { allowedOrigins?: string[]; allowedCredentials?: boolean } {
  if (!cors.enabled || !Array.isArray(cors.origin)) return {};
  return { allowedOrigins: cors.origin, allowedCredentials: cors.credentials };
}

function pendingOf(upload: Upload) {
  return { id: upload.id, size: upload.size ?? null, metadata: upload.metadata ?? {} };
}

export function tusRoutes(deps: FileRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    const pending = new PendingFiles(deps.files, deps.writer, deps.items);
    const opened = new WeakMap<IncomingMessage, OpenedCollection>();
    const warn: Warn = (error, message) => app.log.warn({ err: error }, message);
    const server = tusServer(deps, pending, opened, warn);
    // The body is the library's to read, as a stream.
    app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      opened.set(request.raw, await deps.files.open(request.accountability, 'create', true));
      reply.hijack();
      await server.handle(request.raw, reply.raw);
    };
    app.route({ method: [...TUS_METHODS], url: TUS_PATH, handler });
    app.route({ method: [...TUS_METHODS], url: `${TUS_PATH}/:id`, handler });

    const expirationMs = deps.config.storage.tus.expirationMs;
    const cleanup = async () => {
      await server.cleanUpExpiredUploads().catch(() => 0);
      await pending.expire(new Date(Date.now() - expirationMs));
    };
    const timer = setInterval(() => {
      cleanup().catch((error: unknown) => warn(error, 'tus: cleanup failed'));
    }, deps.config.storage.tus.cleanupEveryMs);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  };
}
