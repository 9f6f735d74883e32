/**
 * Strata Studio, the admin app (`studio/`, built by `npm run build` into `dist/studio`), served at `/admin` as
 * Directus serves its app. Hashed assets are cached for good; every other path under /admin is a route of the
 * single-page app and gets index.html (never cached, so a new build is picked up at the next load). The app talks
 * to the API like any client, so these routes carry no authentication of their own.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { RouteNotFoundError, ServiceUnavailableError } from '../../errors/catalogue.js';
import { assetHeaders, pageHeaders } from '../page-headers.js';

/** dist/studio from src/http/routes (tsx) and from dist/http/routes (built) alike. */
export const STUDIO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/studio');

export function adminAppRoutes(root: string): FastifyPluginAsync {
  const built = existsSync(path.join(root, 'index.html'));

  return async (app) => {
    if (built) await app.register(fastifyStatic, { root, serve: false });
    const publicRoute = { config: { public: true } };

    const sendIndex = async (reply: FastifyReply) => {
      if (!built) throw new ServiceUnavailableError('admin', 'The admin app is not built: run npm run build');
      // The app loads nothing from elsewhere (page-headers.ts). A nonce per response lets the code editor's <style>
      // elements in (the app reads it from the meta tag); read per response, so a new build is picked up.
      const nonce = randomBytes(16).toString('base64');
      const html = (await readFile(path.join(root, 'index.html'), 'utf8')).replace(
        '<head>',
        `<head><meta name="style-nonce" content="${nonce}">`,
      );
      return pageHeaders(reply.header('cache-control', 'no-cache'), nonce).type('text/html; charset=utf-8').send(html);
    };

    app.get('/', publicRoute, async (_request, reply) => reply.redirect('/admin/'));
    app.get('/admin', publicRoute, async (_request, reply) => sendIndex(reply));
    app.get<{ Params: { '*': string } }>('/admin/*', publicRoute, async (request, reply) => {
      const wanted = request.params['*'];
      const file = path.resolve(root, wanted);
      const inside = file.startsWith(root + path.sep);
      if (built && inside && wanted !== 'index.html' && existsSync(file) && statSync(file).isFile()) {
        // Vite names every built asset after its content hash.
        const immutable = wanted.startsWith('assets/');
        return assetHeaders(
          reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache'),
        ).sendFile(path.relative(root, file), { cacheControl: false });
      }
      // A missing asset is a 404, not the app's page (a stale index.html asking for an old chunk must fail loudly).
      if (wanted.startsWith('assets/') || path.extname(wanted) !== '')
        throw new RouteNotFoundError(request.url.split('?')[0]!);
      return sendIndex(reply);
    });
  };
}
