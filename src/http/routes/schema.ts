/**
 * /schema/snapshot, /schema/diff, /schema/apply (admins): Directus's schema migration endpoints. Snapshots and
 * diffs travel as JSON, or as YAML (`?export=yaml`; a YAML body with a YAML content type).
 */
import type { FastifyPluginAsync } from 'fastify';
import { parse as parseYaml, stringify as yamlStringify } from 'yaml';
import { InvalidPayloadError, InvalidQueryError } from '../../errors/catalogue.js';
import type { AppContext } from '../../services/app-context.js';
import { SchemaSync } from '../../schema-sync/schema-sync-service.js';
import { contentDisposition } from '../../io/export-stream.js';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export function schemaRoutes(context: AppContext): FastifyPluginAsync {
  const sync = new SchemaSync(context);
  return async (app) => {
    app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseYaml(body as string));
      } catch (error) {
        done(new InvalidPayloadError(`Invalid YAML: ${(error as Error).message.split('\n')[0]}`), undefined);
      }
    });

    app.get('/snapshot', async (request, reply) => {
      const snapshot = sync.snapshot(request.accountability);
      const format = (request.query as Record<string, unknown>).export;
      if (format === undefined || format === '') return reply.type('application/json; charset=utf-8').send({ data: snapshot });
      if (format !== 'json' && format !== 'yaml') throw new InvalidQueryError('"export" must be json or yaml');
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      void reply.header('content-disposition', contentDisposition(`snapshot-${stamp}.${format}`));
      if (format === 'yaml') return reply.type('text/yaml; charset=utf-8').send(yamlStringify(snapshot));
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
