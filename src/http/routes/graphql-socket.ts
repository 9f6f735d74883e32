/**
 * The WebSocket side of the GraphQL route (WEBSOCKETS_GRAPHQL_PATH, `/graphql` by default): an upgraded request is
 * handed to the graphql-ws server (realtime/graphql-socket.ts); plain GET and POST stay GraphQL over HTTP.
 */
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { GraphQLService } from '../../graphql/graphql-service.js';
import { graphqlSocketServer, openGraphQLSocket } from '../../realtime/graphql-socket.js';
import type { AppContext } from '../../services/app-context.js';
import type { SpecsService } from '../../specs/specs-service.js';
import { clientInfo } from '../auth-cookies.js';
import { extractToken } from '../extract-token.js';

export function graphqlSocketHandler(
  context: AppContext,
  service: GraphQLService,
  specs: SpecsService,
): (socket: WebSocket, request: FastifyRequest) => void {
  const server = graphqlSocketServer(context, service, (accountability) => specs.oasDocument(accountability));
  return (socket, request) => {
    let upgradeToken: string | null = null;
    if (context.config.graphqlSockets.auth === 'strict') {
      try {
        upgradeToken = extractToken(request, context.config.auth.sessionCookie.name);
      } catch {
        // Two tokens at once: none is taken, and the socket closes as unauthenticated.
      }
    }
    openGraphQLSocket(server, socket, {
      client: clientInfo(request, context.config.ip.customHeader),
      cookies: request.cookies,
      upgradeToken,
      log: request.log,
    });
  };
}
