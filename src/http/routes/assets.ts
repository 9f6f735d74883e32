/**
 * `GET /assets/{id}` (Directus docs: Assets): the file's bytes streamed from storage, or an image variant. Ranges
 * (206), ETag and Last-Modified with conditional requests (304), Cache-Control from ASSETS_CACHE_TTL (private for a
 * signed-in caller), `?download` as an attachment. Every answer forbids the browser to sniff another type and carries
 * a Content-Security-Policy that runs no script (an SVG opened from here cannot act in the API's origin); HTML and
 * other document types are always sent as attachments.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { RangeNotSatisfiableError } from '../../errors/catalogue.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import type { AssetService, ServedAsset } from '../../engine/files/asset-service.js';
import type { Config } from '../../config/config.js';
import { parseAssetQuery } from '../../request/asset-query.js';
import { parseByteRange } from '../../request/byte-range.js';

export interface AssetRoutesDeps {
  config: Config;
  assets: AssetService;
}

/** No script, no plugin, no form, no frame; images and styles of the document itself only. */
export const ASSET_CSP =
  "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox";

/** Types a browser would run as a document of the API's origin: always downloaded, never shown. */
const DOCUMENT_TYPES =
  /^(text\/html|application\/xhtml\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript|application\/x-shockwave-flash)/i;

/** `Content-Disposition` with the name in ASCII and in full (RFC 6266). */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function notModified(request: FastifyRequest, asset: ServedAsset): boolean {
  const tags = request.headers['if-none-match'];
  if (tags) return tags.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag || tag.trim() === '*');
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(asset.modified.getTime() / 1000) * 1000 <= since;
}

function setHeaders(reply: FastifyReply, request: FastifyRequest, asset: ServedAsset, download: boolean, ttl: number) {
  const attachment = download || DOCUMENT_TYPES.test(asset.type);
  const scope = request.accountability.user ? 'private' : 'public';
  reply
    .header('content-type', asset.type)
    .header('etag', asset.etag)
    .header('last-modified', asset.modified.toUTCString())
    .header('cache-control', ttl > 0 ? `${scope}, max-age=${ttl}` : 'no-cache')
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', ASSET_CSP)
    .header('content-disposition', contentDisposition(attachment ? 'attachment' : 'inline', asset.filename));
}

const BYTES = {
  description: 'The file, or a part of it (206), or an image variant',
  media: '*/*',
  schema: Type.String({ format: 'binary' }),
};

export const ASSET_ROUTES = {
  asset: {
    method: 'GET',
    url: '/assets/:pk',
    summary:
      'A file’s content, or a transformed image (width, height, fit, quality, format, key, transforms, download)',
    tags: ['Assets'],
    audience: 'anyone',
    response: BYTES,
  },
  named: {
    method: 'GET',
    url: '/assets/:pk/:filename',
    summary: 'The same, with a file name after the id (for links that end in it)',
    tags: ['Assets'],
    audience: 'anyone',
    response: BYTES,
  },
} satisfies Record<string, RouteDeclaration>;

export function assetRoutes(context: AssetRoutesDeps): FastifyPluginAsync {
  const { storage } = context.config;
  const handler = async (request: FastifyRequest<{ Params: { pk: string } }>, reply: FastifyReply) => {
    const query = parseAssetQuery(request.query as Record<string, unknown>, storage.transforms.maxOperations);
    request.timer.mark('parse');
    const accept = String(request.headers.accept ?? '');
    const asset = await context.assets.resolve(request.params.pk, query, request.accountability, accept);
    setHeaders(reply, request, asset, query.download, storage.assetsCacheTtlSeconds);
    if (notModified(request, asset)) return reply.code(304).send();
    let range = null;
    try {
      if (!request.headers['if-range'] || request.headers['if-range'] === asset.etag)
        range = parseByteRange(request.headers.range, asset.size);
    } catch (error) {
      if (error instanceof RangeNotSatisfiableError) reply.header('content-range', `bytes */${asset.size}`);
      throw error;
    }
    if (range) {
      reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${asset.size}`)
        .header('content-length', range.end - range.start + 1);
      return reply.send(await context.assets.read(asset, range));
    }
    reply.header('content-length', asset.size);
    return reply.send(await context.assets.read(asset));
  };
  return async (app) => {
    declareRoute(app, ASSET_ROUTES.asset, handler);
    // Directus accepts a file name after the id (for links that end in the name); it changes nothing.
    declareRoute(app, ASSET_ROUTES.named, handler);
  };
}
