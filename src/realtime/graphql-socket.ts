/**
 * GraphQL over WebSocket (the `graphql-transport-ws` protocol of npm graphql-ws, which Directus serves on
 * WEBSOCKETS_GRAPHQL_PATH): subscriptions (`<c>_mutated`), and queries and mutations too, on the caller's cached
 * /graphql schema. Authentication (WEBSOCKETS_GRAPHQL_AUTH): `handshake` wants `access_token` in the
 * `connection_init` payload, `public` takes it when given and otherwise acts as the Public policy, `strict` takes the
 * token of the upgrade request; a bad or missing token closes the socket with 4403 Forbidden (graphql-ws's code).
 * Documents are parsed with the HTTP route's limits and validated against the caller's schema; failures answer an
 * `error` message whose GraphQL errors carry `extensions.code` (GRAPHQL_VALIDATION, or the catalogue code of what
 * failed).
 */
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
} from 'graphql';
import { makeServer, type Context, type Server, type WebSocket } from 'graphql-ws';
import type { Accountability } from '../permissions/accountability.js';
import type { ClientInfo } from '../services/auth-service.js';
import type { AppContext } from '../services/app-context.js';
import { NO_MARKS } from '../services/items-service.js';
import type { GraphQLContext } from '../graphql/context.js';
import { formatGraphQLError } from '../graphql/document-cache.js';
import { documentLimitError } from '../graphql/document-limits.js';
import { executionErrors, type GraphQLService, type Logger } from '../graphql/graphql-service.js';

/** What the route knows of the upgrade request. */
export interface SocketExtra {
  client: ClientInfo;
  cookies: Record<string, string | undefined>;
  /** strict mode: the upgrade request's token (null: none). */
  upgradeToken: string | null;
  log: Logger;
  /** Set once `connection_init` is accepted. */
  accountability?: Accountability;
}

type InitPayload = Record<string, unknown> | undefined;
type SocketContext = Context<InitPayload, SocketExtra>;

const validationError = (message: string, errors: unknown[]) =>
  new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION', errors } });

export function graphqlSocketServer(
  app: AppContext,
  service: GraphQLService,
  oas: (accountability: Accountability) => Promise<unknown>,
): Server<SocketExtra> {
  const { auth, authTimeoutMs } = app.config.graphqlSockets;
  const graphqlConfig = app.config.graphql;

  const authenticate = async (ctx: SocketContext): Promise<boolean> => {
    const given = ctx.connectionParams?.access_token;
    const token = auth === 'strict' ? ctx.extra.upgradeToken : typeof given === 'string' && given !== '' ? given : null;
    if (!token && auth !== 'public') return false;
    try {
      ctx.extra.accountability = await app.accountability.resolve(token, ctx.extra.client.ip);
      return true;
    } catch {
      return false;
    }
  };

  const contextOf = (ctx: SocketContext, accountability: Accountability): GraphQLContext => ({
    app,
    accountability,
    marks: NO_MARKS,
    client: ctx.extra.client,
    cookies: ctx.extra.cookies,
    // Over a socket no reply carries cookies: auth mutations that set them belong to /graphql/system over HTTP.
    cookieChanges: [],
    sdl: (scope) => service.sdl(scope, accountability),
    oas: () => oas(accountability),
  });

  return makeServer<InitPayload, SocketExtra>({
    connectionInitWaitTimeout: authTimeoutMs,
    onConnect: (ctx) => authenticate(ctx),
    onSubscribe: async (ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
      const accountability = ctx.extra.accountability!;
      const schema = await service.schemaFor('items', accountability);
      let document: DocumentNode;
      try {
        document = parse(payload.query, { maxTokens: graphqlConfig.queryTokenLimit });
      } catch (error) {
        return [validationError('GraphQL validation error.', [formatGraphQLError(error as GraphQLError)])];
      }
      const tooMuch = documentLimitError(document, payload.query, graphqlConfig);
      if (tooMuch) return [validationError('GraphQL validation error.', [formatGraphQLError(tooMuch)])];
      const rules = graphqlConfig.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
      const errors = validate(schema, document, rules);
      // One error per problem, each with the code (a client shows the first message it gets).
      if (errors.length) return errors.map((e) => validationError(e.message, [formatGraphQLError(e)]));
      return {
        schema,
        document,
        operationName: payload.operationName ?? undefined,
        variableValues: payload.variables ?? undefined,
        contextValue: contextOf(ctx, accountability),
      };
    },
    onNext: (ctx, _id, _payload, _args, result) => {
      if (!result.errors?.length) return;
      return {
        ...result,
        errors: result.errors.flatMap(
          (error) => executionErrors(error, ctx.extra.log) as unknown as GraphQLFormattedError[],
        ),
      };
    },
    onError: (ctx, _id, _payload, errors) =>
      errors.map((error) =>
        error.extensions?.code
          ? (error.toJSON() as GraphQLFormattedError)
          : (executionErrors(error, ctx.extra.log)[0] as unknown as GraphQLFormattedError),
      ),
  });
}

/** One upgraded socket (`ws`) handed to the graphql-ws server. */
export function openGraphQLSocket(
  server: Server<SocketExtra>,
  socket: import('ws').WebSocket,
  extra: SocketExtra,
): void {
  const link: WebSocket = {
    protocol: socket.protocol,
    send: (data) =>
      new Promise<void>((resolve) => {
        if (socket.readyState !== socket.OPEN) return resolve();
        // A send that fails means the socket is going: its close ends the subscriptions.
        socket.send(data, () => resolve());
      }),
    close: (code, reason) => socket.close(code, reason),
    onMessage: (handle) =>
      socket.on('message', (data, isBinary) => {
        if (isBinary) return void socket.close(4400, 'Binary messages are not supported');
        handle(data.toString()).catch((error: unknown) => {
          extra.log.error({ err: error }, 'GraphQL socket message failed');
          socket.close(4500, 'Internal server error');
        });
      }),
  };
  const closed = server.opened(link, extra);
  socket.once('close', (code, reason) => void closed(code, reason.toString()));
  socket.on('error', () => socket.terminate());
}
