/**
 * `/docs`: an API reference page over the caller's OpenAPI document, rendered by Swagger UI. Its assets come from
 * the `swagger-ui-dist` package installed with Strata (no CDN): read once, kept in memory, cached by browsers for a
 * day. The page fetches `/server/specs/oas` with the browser's cookies (a `session` login shows that user's API) or
 * with the token given as `/docs?access_token=...`, which also authorises "Try it out". Off with DOCS_ENABLED=false.
 * The page has no inline script (its setup is /docs/init.js), so its CSP allows scripts from this origin only.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { RouteNotFoundError } from '../../errors/catalogue.js';
import { assetHeaders, pageHeaders } from '../page-headers.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const distDir = (): string => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** `base` is the path Strata is served under (from PUBLIC_URL), '' at the root. */
function page(base: string): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Strata API reference</title>
    <link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="${base}/docs/assets/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${base}/docs/assets/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
    <script src="${base}/docs/init.js"></script>
  </body>
</html>
`;
}

function initScript(base: string): string {
  return `// Renders the caller's OpenAPI document; a token in the page's query string authorises it.
(function () {
  var token = new URLSearchParams(window.location.search).get('access_token');
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(`${base}/server/specs/oas`)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'none', // one line per collection; a click opens its operations
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null, // no badge fetched from validator.swagger.io (the page's CSP allows this origin only)
    requestInterceptor: function (request) {
      if (token && !request.headers.Authorization) request.headers.Authorization = 'Bearer ' + token;
      return request;
    },
  });
})();
`;
}

export function docsRoutes(publicUrl: string): FastifyPluginAsync {
  const base = publicUrl === '/' ? '' : new URL(publicUrl).pathname.replace(/\/+$/, '');
  const loaded = new Map<string, Buffer>();
  const asset = (name: string): Buffer => {
    let content = loaded.get(name);
    if (!content) loaded.set(name, (content = readFileSync(path.join(distDir(), name))));
    return content;
  };
  const html = page(base);
  const init = initScript(base);
  const open = { config: { public: true } };

  return async (app) => {
    app.get('/docs', open, async (_request, reply) =>
      pageHeaders(reply.header('cache-control', 'no-cache')).type('text/html; charset=utf-8').send(html),
    );
    app.get('/docs/init.js', open, async (_request, reply) =>
      assetHeaders(reply.header('cache-control', 'no-cache')).type('text/javascript; charset=utf-8').send(init),
    );
    app.get<{ Params: { name: string } }>('/docs/assets/:name', open, async (request, reply) => {
      const type = ASSETS[request.params.name];
      if (!type) throw new RouteNotFoundError(request.url.split('?')[0]!);
      return assetHeaders(reply.header('cache-control', 'public, max-age=86400'))
        .type(type)
        .send(asset(request.params.name));
    });
  };
}
