/**
 * /websocket (WEBSOCKETS_REST_PATH): Directus's realtime protocol over @fastify/websocket; each connection is a
 * SocketSession (realtime/socket-session.ts). Authentication is the session's (the handshake or the first `auth`
 * message), so the route skips the request-level token check.
 */
import websocket from '@fastify/websocket';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../services/app-context.js';
import { SocketSession } from '../../realtime/socket-session.js';
import { clientIp } from '../client-ip.js';
import { extractToken } from '../extract-token.js';

export function websocketRoutes(context: AppContext, ipHeader: string | null): FastifyPluginAsync {
  const { config } = context;
  return async (app) => {
    await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
    app.get(
      config.websockets.path,
      { websocket: true, config: { public: true, openapi: false } },
      (socket, request) => {
        const session = new SocketSession(
          context,
          {
            send: (message) => {
              if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
            },
            sendText: (text) => {
              if (socket.readyState === socket.OPEN) socket.send(text);
            },
            close: () => socket.close(),
          },
          clientIp(request, ipHeader),
        );
        socket.on('message', (data, isBinary) => {
          if (!isBinary) session.receive(data.toString());
        });
        socket.on('close', () => session.close());
        const token =
          config.websockets.auth === 'strict' ? extractToken(request, config.auth.sessionCookie.name) : null;
        session.start(token);
        if (config.websockets.heartbeatMs) {
          const beat = setInterval(() => {
            if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type: 'ping' }));
          }, config.websockets.heartbeatMs);
          beat.unref();
          socket.on('close', () => clearInterval(beat));
        }
      },
    );
  };
}
