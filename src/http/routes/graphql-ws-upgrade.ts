/**
 * The WebSocket side of the GraphQL route (WEBSOCKETS_GRAPHQL_PATH, `/graphql` by default): an upgraded request is
 * handed to the graphql-ws server (realtime/graphql-ws/server.ts); plain GET and POST stay GraphQL over HTTP. Connections
 * are counted as /websocket's are (realtime/socket-limits.ts), in a count of their own: the total
 * (WEBSOCKETS_GRAPHQL_CONN_LIMIT) and per client address are refused before the upgrade (503 / 429), as is, in
 * strict mode, an upgrade without a user's valid token (401).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { GraphQLService } from '../../graphql/graphql-service.js';
import { graphqlSocketServer, openGraphQLSocket, type GraphQLSocketApi } from '../../realtime/graphql-ws/server.js';
import { socketCounter } from '../../realtime/socket-counters.js';

import type { SpecsService } from '../../specs/specs-service.js';
import { clientInfo } from '../auth-cookies.js';
import { extractToken } from '../extract-token.js';
import { refuseUnauthenticatedUpgrade } from '../strict-upgrade.js';

export interface GraphQLSocketRoute {
  wsHandler: (socket: WebSocket, request: FastifyRequest) => void;
  /** Refuses an upgrade over the connection limits before a socket exists; lets plain HTTP requests through. */
  preValidation: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export function graphqlSocketHandler(
  context: GraphQLSocketApi,
  service: GraphQLService,
  specs: SpecsService,
): GraphQLSocketRoute {
  const { websockets, graphqlSockets } = context.config;
  const registry = socketCounter(
    'graphql',
    { ...websockets.limits, connections: graphqlSockets.connections },
    context.config.workers,
  );
  const server = graphqlSocketServer(context, service, (accountability) => specs.oasDocument(accountability), registry);
  const bounds = {
    maxMessageBytes: websockets.limits.maxMessageBytes,
    maxBufferBytes: websockets.limits.maxBufferBytes,
    heartbeatMs: websockets.heartbeatMs,
  };
  const ipOf = (request: FastifyRequest) => clientInfo(request, context.config.ip.customHeader).ip;
  const preValidation = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.ws) return;
    const refusal = await registry.refusal(ipOf(request));
    if (refusal) {
      const code = refusal.status === 503 ? 'SERVICE_UNAVAILABLE' : 'REQUESTS_EXCEEDED';
      await reply.code(refusal.status).send({ errors: [{ message: refusal.reason, extensions: { code } }] });
    } else if (graphqlSockets.auth === 'strict')
      await refuseUnauthenticatedUpgrade(context, request, reply, ipOf(request));
  };
  const wsHandler = (socket: WebSocket, request: FastifyRequest) => {
    const release = registry.open(ipOf(request));
    socket.once('close', release);
    let upgradeToken: string | null = null;
    if (context.config.graphqlSockets.auth === 'strict') {
      try {
        upgradeToken = extractToken(request, context.config.auth.sessionCookie.name);
      } catch {
        // Two tokens at once: refused before the upgrade (strict-upgrade.ts); not reached.
      }
    }
    openGraphQLSocket(
      server,
      socket,
      {
        client: clientInfo(request, context.config.ip.customHeader),
        cookies: request.cookies,
        upgradeToken,
        log: request.log,
      },
      bounds,
      () => context.subscriptions.holdEvents(),
    );
  };
  return { wsHandler, preValidation };
}
