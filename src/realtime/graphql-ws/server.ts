/**
 * GraphQL over WebSocket (the `graphql-transport-ws` protocol of npm graphql-ws, which Directus serves on
 * WEBSOCKETS_GRAPHQL_PATH): subscriptions (`<c>_mutated`), and queries and mutations too, on the caller's cached
 * /graphql schema. Authentication (WEBSOCKETS_GRAPHQL_AUTH): `handshake` wants `access_token` in the
 * `connection_init` payload, `public` takes it when given and otherwise acts as the Public policy, `strict` takes the
 * token of the upgrade request; a bad or missing token closes the socket with 4403 Forbidden (graphql-ws's code).
 * Documents are parsed with the HTTP route's limits and validated against the caller's schema; failures answer an
 * `error` message whose GraphQL errors carry `extensions.code` (GRAPHQL_VALIDATION, or the catalogue code of what
 * failed). Bounded as /websocket is (docs/design/realtime-fan-out.md, the same WEBSOCKETS_* settings): connections per user (counted at
 * `connection_init`; past the limit closed with 1008), operations per connection (WEBSOCKETS_SUBSCRIPTION_LIMIT) and
 * each `subscribe` spending a point of the per-IP rate limiter (both refused with an `error` message whose code is
 * REQUESTS_EXCEEDED, the connection kept), a frame over WEBSOCKETS_MAX_MESSAGE_SIZE closed with 1009, a slow
 * consumer closed with 1013, a silent peer closed after a missed ping (socket-bounds.ts); an expired, logged out or
 * revoked token closes it with 4403 (graphql-socket-auth.ts).
 */
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { makeServer, type Context, type Server, type SubscribePayload, type WebSocket } from 'graphql-ws';
import type { Accountability } from '../../permissions/accountability.js';
import type { ClientInfo } from '../../auth/auth-service.js';
import type { LiveCallerApi } from '../../app/ports.js';
import type { Config } from '../../config/config.js';
import type { RateLimiters } from '../../bus/rate-limiters.js';
import { NO_MARKS } from '../../engine/read/items-service.js';
import type { GraphQLApi, GraphQLContext } from '../../graphql/context.js';
import { formatGraphQLError } from '../../graphql/document-cache.js';
import { documentLimitError } from '../../graphql/document-limits.js';
import { executionErrors, type GraphQLService, type Logger } from '../../graphql/graphql-service.js';
import { consume } from '../../bus/rate-limiters.js';
import { ServiceError } from '../../errors/catalogue.js';
import { GraphQLSocketAuth } from './connection-auth.js';
import { heartbeat, overBuffer, POLICY_VIOLATION } from '../socket-bounds.js';
import type { SocketCounter } from '../socket-counters.js';

/** What the route knows of the upgrade request. */
export interface SocketExtra {
  client: ClientInfo;
  cookies: Record<string, string | undefined>;
  /** strict mode: the upgrade request's token (null: none). */
  upgradeToken: string | null;
  log: Logger & { warn(object: unknown, message: string): void };
  /** Closes the socket (once it is closed, `closed` is true). */
  close(code: number, reason: string): void;
  closed: boolean;
  /** The socket's credentials, set at `connection_init` and checked again before each operation and message. */
  auth?: GraphQLSocketAuth;
  /**
   * Per operation id, the hold on change events its `subscribe` message took when it was read (event-hold.ts): a
   * write committed while the operation starts is not missed. Released once the hub has the subscription, or once
   * the operation turns out to be something else, fails, or the socket closes.
   */
  holds: Map<string, () => void>;
}

type InitPayload = Record<string, unknown> | undefined;
type SocketContext = Context<InitPayload, SocketExtra>;

const validationError = (message: string, errors: unknown[]) =>
  new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION', errors } });
const refusal = (error: ServiceError) => [new GraphQLError(error.message, { extensions: { code: error.code } })];

/** GraphQL over a socket: the GraphQL front end, a caller followed while the socket lives, and its rate limit. */
export interface GraphQLSocketApi extends GraphQLApi, LiveCallerApi {
  rateLimiters: RateLimiters;
}

/**
 * The operation's document parsed with the HTTP route's limits, validated against the caller's schema, and its
 * variables checked against the operation; the errors to answer instead when any of that fails.
 */
function checkedDocument(
  schema: GraphQLSchema,
  payload: SubscribePayload,
  graphqlConfig: Config['graphql'],
): DocumentNode | GraphQLError[] {
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
  // Variables that do not fit the operation: nothing runs, and the answer is HTTP's (GraphQLService.execute).
  const operation = getOperationAST(document, payload.operationName ?? undefined);
  const coerced = getVariableValues(schema, operation?.variableDefinitions ?? [], payload.variables ?? {});
  if (coerced.errors)
    return [
      validationError(
        'GraphQL validation error.',
        coerced.errors.map((e) => formatGraphQLError(e)),
      ),
    ];
  return document;
}

export function graphqlSocketServer(
  app: GraphQLSocketApi,
  service: GraphQLService,
  oas: (accountability: Accountability) => Promise<unknown>,
  registry: SocketCounter,
): Server<SocketExtra> {
  const { auth, authTimeoutMs } = app.config.graphqlSockets;
  const { subscriptionsPerConnection } = app.config.websockets.limits;
  const graphqlConfig = app.config.graphql;

  const authenticate = async (ctx: SocketContext): Promise<boolean> => {
    const given = ctx.connectionParams?.access_token;
    const token = auth === 'strict' ? ctx.extra.upgradeToken : typeof given === 'string' && given !== '' ? given : null;
    if (!token && auth !== 'public') return false;
    const guard = new GraphQLSocketAuth(app, registry, ctx.extra.client.ip, ctx.extra.close);
    const outcome = await guard.connect(token);
    if (outcome === 'too-many') ctx.extra.close(POLICY_VIOLATION, 'Too many connections for this user');
    if (outcome !== 'ok') {
      guard.release();
      return false;
    }
    ctx.extra.auth = guard;
    if (ctx.extra.closed) guard.release();
    return true;
  };

  /** Why an operation may not start now (rate, count), or null. */
  const bounded = async (ctx: SocketContext): Promise<ServiceError | null> => {
    const { perIp } = app.rateLimiters;
    try {
      // Operations spend the same per-IP points as HTTP requests (RATE_LIMITER_*), as /websocket's messages do.
      if (perIp) await consume(perIp, ctx.extra.client.ip ?? '');
    } catch (error) {
      if (error instanceof ServiceError) return error;
      throw error;
    }
    // graphql-ws has put this operation's id in `subscriptions` already.
    const running = Object.keys(ctx.subscriptions).length - 1;
    if (subscriptionsPerConnection !== null && running >= subscriptionsPerConnection)
      return new ServiceError(
        'REQUESTS_EXCEEDED',
        429,
        `At most ${subscriptionsPerConnection} subscriptions per connection.`,
      );
    return null;
  };

  const contextOf = (ctx: SocketContext, id: string, accountability: Accountability): GraphQLContext => ({
    app,
    accountability,
    marks: NO_MARKS,
    client: ctx.extra.client,
    cookies: ctx.extra.cookies,
    // Over a socket no reply carries cookies: auth mutations that set them belong to /graphql/system over HTTP.
    cookieChanges: [],
    sdl: (scope) => service.sdl(scope, accountability),
    oas: () => oas(accountability),
    live: ctx.extra.auth,
    subscribed: () => release(ctx, id),
  });

  return makeServer<InitPayload, SocketExtra>({
    connectionInitWaitTimeout: authTimeoutMs,
    onConnect: (ctx) => authenticate(ctx),
    onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
      const guard = ctx.extra.auth!;
      if (!(await guard.valid(true)))
        return refusal(new ServiceError('FORBIDDEN', 403, 'The connection is no longer authenticated.'));
      const refused = await bounded(ctx);
      if (refused) return refusal(refused);
      const accountability = guard.accountability!;
      const schema = await service.schemaFor('items', accountability);
      const document = checkedDocument(schema, payload, graphqlConfig);
      if (Array.isArray(document)) return document;
      return {
        schema,
        document,
        operationName: payload.operationName ?? undefined,
        variableValues: payload.variables ?? undefined,
        contextValue: contextOf(ctx, id, accountability),
      };
    },
    // The operation has started (a query or mutation ran, or the subscription is in the hub or refused).
    onOperation: (ctx, id) => release(ctx, id),
    onNext: async (ctx, _id, _payload, _args, result) => {
      // An expired or withdrawn token closes the socket here, and the message is then not sent (the link drops it).
      if (!(await ctx.extra.auth!.valid(false))) return;
      if (!result.errors?.length) return;
      return {
        ...result,
        errors: result.errors.flatMap(
          (error) => executionErrors(error, ctx.extra.log) as unknown as GraphQLFormattedError[],
        ),
      };
    },
    onError: (ctx, id, _payload, errors) => {
      release(ctx, id);
      return errors.map((error) =>
        error.extensions?.code
          ? (error.toJSON() as GraphQLFormattedError)
          : (executionErrors(error, ctx.extra.log)[0] as unknown as GraphQLFormattedError),
      );
    },
  });
}

/** Ends the hold the operation's subscribe message took, if it still has one. */
function release(ctx: SocketContext, id: string): void {
  const hold = ctx.extra.holds.get(id);
  if (!hold) return;
  ctx.extra.holds.delete(id);
  hold();
}

/** The id of a `subscribe` frame (graphql-ws parses it again and refuses what is malformed), or null. */
function subscribeId(text: string): string | null {
  if (!text.includes('subscribe')) return null;
  try {
    const frame = JSON.parse(text) as { type?: unknown; id?: unknown };
    return frame?.type === 'subscribe' && typeof frame.id === 'string' ? frame.id : null;
  } catch {
    return null;
  }
}

/** What bounds a socket's frames (the WEBSOCKETS_* settings). */
export interface SocketBounds {
  maxMessageBytes: number;
  maxBufferBytes: number;
  heartbeatMs: number | null;
}

/** Close code (RFC 6455) of a frame over the message size limit. */
const MESSAGE_TOO_BIG = 1009;

/** One upgraded socket (`ws`) handed to the graphql-ws server. */
export function openGraphQLSocket(
  server: Server<SocketExtra>,
  socket: import('ws').WebSocket,
  extra: Omit<SocketExtra, 'close' | 'closed' | 'holds'>,
  bounds: SocketBounds,
  holdEvents: () => () => void,
): void {
  const full: SocketExtra = {
    ...extra,
    close: (code, reason) => socket.close(code, reason),
    closed: false,
    holds: new Map(),
  };
  let slow = false;
  const link: WebSocket = {
    protocol: socket.protocol,
    // Not waiting for the data to be flushed: a client that reads slowly shows as unsent data (bufferedAmount),
    // and is closed past WEBSOCKETS_MAX_BUFFER instead of holding its subscriptions' messages back.
    send: async (data) => {
      if (socket.readyState !== socket.OPEN || slow) return;
      // A send that fails means the socket is going: its close ends the subscriptions.
      socket.send(data, () => {});
      slow = overBuffer(socket, bounds.maxBufferBytes, (buffered) =>
        extra.log.warn({ ip: extra.client.ip, buffered }, 'GraphQL socket: slow consumer closed'),
      );
    },
    close: (code, reason) => socket.close(code, reason),
    onMessage: (handle) =>
      socket.on('message', (data, isBinary) => {
        if (isBinary) return void socket.close(4400, 'Binary messages are not supported');
        // graphql-ws has no error message without an operation id: a frame over the limit closes the socket (1009,
        // which the graphql-ws client does not retry); `ws` itself refuses frames past twice the limit.
        const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
        if (size > bounds.maxMessageBytes)
          return void socket.close(MESSAGE_TOO_BIG, `A message is at most ${bounds.maxMessageBytes} bytes`);
        const text = data.toString();
        // Taken now, as the message is read: the subscription is live from here (see SocketExtra.holds).
        const id = subscribeId(text);
        if (id !== null && !full.holds.has(id) && full.auth) full.holds.set(id, holdEvents());
        handle(text).catch((error: unknown) => {
          extra.log.error({ err: error }, 'GraphQL socket message failed');
          socket.close(4500, 'Internal server error');
        });
      }),
  };
  const closed = server.opened(link, full);
  socket.once('close', (code, reason) => {
    full.closed = true;
    full.auth?.release();
    for (const hold of full.holds.values()) hold();
    full.holds.clear();
    void closed(code, reason.toString());
  });
  socket.on('error', () => socket.terminate());
  if (bounds.heartbeatMs) heartbeat(socket, bounds.heartbeatMs);
}
