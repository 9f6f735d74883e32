/**
 * /schema/snapshot, /schema/diff, /schema/apply (admins): Directus's schema migration endpoints. Snapshots and
 * diffs travel as JSON, or as YAML (`?export=yaml`; a YAML body with a YAML content type).
 */
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { InvalidPayloadError, InvalidQueryError } from '../../errors/catalogue.js';
import { checkBody, compileSchema, OneOf } from '../../request/body-check.js';
import type { SchemaAdminApi } from '../../app/ports.js';
import { DiffAnswerShape, SnapshotShape } from '../../schema-admin/sync/diff.js';
import { SchemaSync } from '../../schema-admin/sync/schema-sync-service.js';
import { contentDisposition } from '../../io/export-stream.js';
import { toYaml, yamlModule } from '../../io/yaml.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA } from './route-answers.js';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** `?export=json|yaml` downloads the snapshot as a file; `export=` (empty) is no export, as in Directus. */
const SnapshotQuery = compileSchema(
  Type.Object({
    export: Type.Optional(
      OneOf(['', 'json', 'yaml'] as const, {
        errorMessage: '"export" must be json or yaml',
        description: 'Download the snapshot as a JSON or YAML file.',
      }),
    ),
  }),
);

/** `?force` (empty, `true` or `1`; anything else is false): diff across vendors and versions. */
const DiffQuery = compileSchema(
  Type.Object({
    force: Type.Optional(
      Type.Unknown({
        description: 'Diff across database vendors and versions (empty, true or 1; anything else is false).',
      }),
    ),
  }),
);

const tags = ['Schema'];
export const SCHEMA_ROUTES = {
  snapshot: {
    method: 'GET',
    url: '/schema/snapshot',
    summary: 'The schema as a snapshot (collections, fields, relations); `?export=yaml` for YAML',
    tags,
    audience: 'admin',
    querystring: SnapshotQuery,
    response: ANY_DATA,
  },
  diff: {
    method: 'POST',
    url: '/schema/diff',
    summary: 'The changes that would turn this schema into the snapshot sent (`?force` across vendors and versions)',
    tags,
    audience: 'admin',
    querystring: DiffQuery,
    body: SnapshotShape,
    response: ANY_DATA,
  },
  apply: {
    method: 'POST',
    url: '/schema/apply',
    summary: 'Apply a diff from /schema/diff (`{hash, diff}`)',
    tags,
    audience: 'admin',
    body: DiffAnswerShape,
    response: null,
  },
} satisfies Record<string, RouteDeclaration>;

export function schemaRoutes(context: SchemaAdminApi): FastifyPluginAsync {
  const sync = new SchemaSync(context);
  return async (app) => {
    app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, yamlModule().parse(body as string));
      } catch (error) {
        done(new InvalidPayloadError(`Invalid YAML: ${(error as Error).message.split('\n')[0]}`), undefined);
      }
    });

    declareRoute(app, SCHEMA_ROUTES.snapshot, async (request, reply) => {
      const snapshot = sync.snapshot(request.accountability);
      const format = checkBody(SnapshotQuery, request.query, (message) => new InvalidQueryError(message)).export;
      if (format === undefined || format === '')
        return reply.type('application/json; charset=utf-8').send({ data: snapshot });
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      void reply.header('content-disposition', contentDisposition(`snapshot-${stamp}.${format}`));
      if (format === 'yaml') return reply.type('text/yaml; charset=utf-8').send(toYaml(snapshot));
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(snapshot, null, 2));
    });

    declareRoute(app, SCHEMA_ROUTES.diff, async (request, reply) => {
      const query = checkBody(DiffQuery, request.query, (message) => new InvalidQueryError(message));
      const force = ['', 'true', '1'].includes(String(query.force ?? 'false'));
      const answer = sync.diff(request.accountability, request.body, force, '?force=true');
      if (!answer) return reply.code(204).send();
      return reply.type('application/json; charset=utf-8').send({ data: answer });
    });

    declareRoute(app, SCHEMA_ROUTES.apply, async (request, reply) => {
      await sync.apply(request.accountability, request.body);
      return reply.code(204).send();
    });
  };
}
