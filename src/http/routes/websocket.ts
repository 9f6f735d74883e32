/**
 * /websocket (WEBSOCKETS_REST_PATH): Directus's realtime protocol over @fastify/websocket; each connection is a
 * SocketSession (realtime/socket-session.ts). Authentication is the session's (a token of the upgrade request, or the
 * first `auth` message), so the route skips the request-level token check. Here: the connection limits (checked
 * before the upgrade), the frame size cap, the slow-consumer cut-off and the heartbeat.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../services/app-context.js';
import { SocketSession } from '../../realtime/socket-session.js';
import { SocketRegistry } from '../../realtime/socket-limits.js';
import { clientIp } from '../client-ip.js';
import { extractToken } from '../extract-token.js';

/** Close codes (RFC 6455): policy violation, and "try again later" for a client too slow to read what it is sent. */
const POLICY = 1008;
const TRY_AGAIN_LATER = 1013;

export function websocketRoutes(context: AppContext, ipHeader: string | null): FastifyPluginAsync {
  const { config } = context;
  const { limits } = config.websockets;
  const registry = new SocketRegistry(limits);
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
          const refusal = registry.refusal(clientIp(request, ipHeader));
          if (refusal) {
            const code = refusal.status === 503 ? 'SERVICE_UNAVAILABLE' : 'REQUESTS_EXCEEDED';
            await reply.code(refusal.status).send({ errors: [{ message: refusal.reason, extensions: { code } }] });
          }
        },
      },
      (socket, request) => {
        const ip = clientIp(request, ipHeader);
        const release = registry.open(ip);
        let slow = false;
        const sendText = (text: string) => {
          if (socket.readyState !== socket.OPEN || slow) return;
          socket.send(text);
          if (socket.bufferedAmount > limits.maxBufferBytes) {
            // The client does not read as fast as it is sent to: drop it rather than hold its backlog.
            slow = true;
            request.log.warn({ ip, buffered: socket.bufferedAmount }, 'WebSocket: slow consumer closed');
            socket.close(TRY_AGAIN_LATER, 'Slow consumer: too much unsent data');
            setTimeout(() => socket.terminate(), 1000).unref();
          }
        };
        const session = new SocketSession(
          context,
          {
            send: (message) => sendText(JSON.stringify(message)),
            sendText,
            close: (code = POLICY, reason) => socket.close(code, reason),
          },
          ip,
          request.log,
          registry,
        );
        let alive = true;
        socket.on('message', (data, isBinary) => {
          alive = true;
          if (isBinary) session.receiveBinary();
          else session.receive(data.toString());
        });
        socket.on('pong', () => (alive = true));
        socket.on('error', (error) => request.log.debug({ err: error }, 'WebSocket: socket error'));
        socket.on('close', () => {
          release();
          session.close();
        });
        let token: string | null = null;
        try {
          token = extractToken(request, config.auth.sessionCookie.name);
        } catch {
          // Two tokens at once: treated as none, so strict mode refuses and the others wait for `auth`.
        }
        session.start(token);
        if (config.websockets.heartbeatMs) {
          // A client that said nothing (no message, no pong) for a whole period since the last ping is gone.
          const beat = setInterval(() => {
            if (socket.readyState !== socket.OPEN) return;
            if (!alive) return void socket.close(POLICY, 'Heartbeat timeout: no pong');
            alive = false;
            socket.send(JSON.stringify({ type: 'ping' }));
          }, config.websockets.heartbeatMs);
          beat.unref();
          socket.on('close', () => clearInterval(beat));
        }
      },
    );
  };
}
