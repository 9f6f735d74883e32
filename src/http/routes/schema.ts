/**
 * /schema/snapshot, /schema/diff, /schema/apply (admins): Directus's schema migration endpoints. Snapshots and
 * diffs travel as JSON, or as YAML (`?export=yaml`; a YAML body with a YAML content type).
 */
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { InvalidPayloadError, InvalidQueryError } from '../../errors/catalogue.js';
import { checkBody, compileSchema, OneOf } from '../../request/body-check.js';
import type { AppContext } from '../../app/app-context.js';
import { SchemaSync } from '../../schema-admin/sync/schema-sync-service.js';
import { contentDisposition } from '../../io/export-stream.js';
import { yamlModule } from '../../io/yaml.js';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** `?export=json|yaml` downloads the snapshot as a file; `export=` (empty) is no export, as in Directus. */
const SnapshotQuery = compileSchema(
  Type.Object({
    export: Type.Optional(OneOf(['', 'json', 'yaml'] as const, { errorMessage: '"export" must be json or yaml' })),
  }),
);

export function schemaRoutes(context: AppContext): FastifyPluginAsync {
  const sync = new SchemaSync(context);
  return async (app) => {
    app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, yamlModule().parse(body as string));
      } catch (error) {
        done(new InvalidPayloadError(`Invalid YAML: ${(error as Error).message.split('\n')[0]}`), undefined);
      }
    });

    app.get('/snapshot', async (request, reply) => {
      const snapshot = sync.snapshot(request.accountability);
      const format = checkBody(SnapshotQuery, request.query, (message) => new InvalidQueryError(message)).export;
      if (format === undefined || format === '')
        return reply.type('application/json; charset=utf-8').send({ data: snapshot });
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      void reply.header('content-disposition', contentDisposition(`snapshot-${stamp}.${format}`));
      if (format === 'yaml') return reply.type('text/yaml; charset=utf-8').send(yamlModule().stringify(snapshot));
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(snapshot, null, 2));
    });

    app.post('/diff', async (request, reply) => {
      const force = ['', 'true', '1'].includes(String((request.query as Record<string, unknown>).force ?? 'false'));
      const answer = sync.diff(request.accountability, request.body, force);
      if (!answer) return reply.code(204).send();
      return reply.type('application/json; charset=utf-8').send({ data: answer });
    });

    app.post('/apply', async (request, reply) => {
      await sync.apply(request.accountability, request.body);
      return reply.code(204).send();
    });
  };
}
