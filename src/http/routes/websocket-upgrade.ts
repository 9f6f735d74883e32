/**
 * /websocket (WEBSOCKETS_REST_PATH): Directus's realtime protocol over @fastify/websocket; each connection is a
 * SocketSession (realtime/websocket/session.ts). Authentication is the session's (a token of the upgrade request, or the
 * first `auth` message), so the route skips the request-level token check. Here: the connection limits and strict
 * mode's token (checked before the upgrade), the frame size cap, the slow-consumer cut-off and the heartbeat.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RealtimeApi } from '../../app/ports.js';
import { SocketSession } from '../../realtime/websocket/session.js';
import { socketCounter } from '../../realtime/socket-counters.js';
import { heartbeat, overBuffer, POLICY_VIOLATION } from '../../realtime/socket-bounds.js';
import { clientIp } from '../client-ip.js';
import { extractToken } from '../extract-token.js';
import { refuseUnauthenticatedUpgrade } from '../strict-upgrade.js';

export function websocketRoutes(context: RealtimeApi, ipHeader: string | null): FastifyPluginAsync {
  const { config } = context;
  const { limits } = config.websockets;
  const registry = socketCounter('rest', limits, config.workers);
  return async (app) => {
    // @fastify/websocket is registered once, in app.ts (GraphQL's socket on /graphql shares it), with frames up to
    // twice the message limit: up to the limit they are answered (CONTENT_TOO_LARGE past it); past twice the limit
    // `ws` closes the connection (1009) without buffering the rest.
    app.get(
      config.websockets.path,
      {
        websocket: true,
        config: { public: true, openapi: false },
        // Before the upgrade: a refused connection never becomes a socket (Directus answers 503 over its limit).
        preValidation: async (request, reply) => {
          const ip = clientIp(request, ipHeader);
          const refusal = await registry.refusal(ip);
          if (refusal) {
            const code = refusal.status === 503 ? 'SERVICE_UNAVAILABLE' : 'REQUESTS_EXCEEDED';
            await reply.code(refusal.status).send({ errors: [{ message: refusal.reason, extensions: { code } }] });
          } else if (config.websockets.auth === 'strict')
            await refuseUnauthenticatedUpgrade(context, request, reply, ip);
        },
      },
      (socket, request) => {
        const ip = clientIp(request, ipHeader);
        const release = registry.open(ip);
        let slow = false;
        const sendText = (text: string) => {
          if (socket.readyState !== socket.OPEN || slow) return;
          socket.send(text);
          // The client does not read as fast as it is sent to: drop it rather than hold its backlog.
          slow = overBuffer(socket, limits.maxBufferBytes, (buffered) =>
            request.log.warn({ ip, buffered }, 'WebSocket: slow consumer closed'),
          );
        };
        const session = new SocketSession(
          context,
          {
            send: (message) => sendText(JSON.stringify(message)),
            sendText,
            close: (code = POLICY_VIOLATION, reason) => socket.close(code, reason),
          },
          ip,
          request.log,
          registry,
        );
        socket.on('message', (data, isBinary) => {
          if (isBinary) session.receiveBinary();
          else session.receive(data.toString());
        });
        socket.on('error', (error) => request.log.debug({ err: error }, 'WebSocket: socket error'));
        socket.on('close', () => {
          release();
          session.close();
        });
        let token: string | null = null;
        try {
          token = extractToken(request, config.auth.sessionCookie.name);
        } catch {
          // Two tokens at once: treated as none (strict mode refused them before the upgrade); the others wait for `auth`.
        }
        session.start(token);
        // A client that said nothing (no message, no pong) for a whole period since the last ping is gone.
        if (config.websockets.heartbeatMs)
          heartbeat(socket, config.websockets.heartbeatMs, () => socket.send(JSON.stringify({ type: 'ping' })));
      },
    );
  };
}
