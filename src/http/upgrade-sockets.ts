/**
 * The connections of WebSocket upgrades, and the end of every connection at shutdown. Node's HTTP server hands a
 * request's connection over at an upgrade (the `upgrade` event) and manages it no more: what answers the request
 * must end it. @fastify/websocket ends it when its own hooks have marked the request, but a refusal from an earlier
 * `onRequest` hook (the rate limiter's 429, the overload guard's 503) comes before that mark, so such a connection
 * stayed open after its answer (CLOSE-WAIT once the client hung up) and held `close()` for ever. Here: any answered
 * upgrade request ends its connection; at `close()` every socket is sent a close frame (1001) and is destroyed a
 * second later if its client does not answer it (a paused client held shutdown 30 s, `ws`'s own close timeout);
 * and SHUTDOWN_TIMEOUT after `close()` began, whatever is still connected (a request still running, a half-done
 * upgrade) is destroyed, so that closing always ends within its timeout.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { closeHard } from '../realtime/socket-bounds.js';

/** Close code (RFC 6455) of a server going away. */
const GOING_AWAY = 1001;
/** How long an answered upgrade's connection may take to be closed by its client after ours is ended. */
const LINGER_MS = 1000;

/** Ends `socket` (its answer is flushed first) and destroys it shortly after if the client keeps its side open. */
function endSoon(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * `upgrades`: whether the app serves WebSocket upgrades (only then is there an `upgrade` listener: without one, Node
 * answers upgrade requests as plain requests). Call before the WebSocket plugin is registered.
 */
export function boundConnections(app: FastifyInstance, upgrades: boolean, shutdownTimeoutMs: number): void {
  const upgraded = new Set<Socket>();
  if (upgrades) {
    app.server.on('upgrade', (_request, socket: Socket) => {
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
    });
    // An upgrade request answered over HTTP (refused) never becomes a socket: its connection ends with the answer.
    app.addHook('onResponse', (request, _reply, done) => {
      const socket = request.raw.socket as Socket;
      if (upgraded.has(socket)) endSoon(socket);
      done();
    });
  }
  app.addHook('preClose', (done) => {
    const deadline = setTimeout(() => {
      app.server.closeAllConnections();
      for (const socket of upgraded) socket.destroy();
    }, shutdownTimeoutMs);
    deadline.unref();
    app.server.once('close', () => clearTimeout(deadline));
    done();
  });
}

/** @fastify/websocket's `preClose`: every socket is closed with 1001, and destroyed a second later if need be. */
export function closeWebSockets(this: FastifyInstance, done: () => void): void {
  const server = this.websocketServer;
  for (const client of server.clients) closeHard(client, GOING_AWAY, 'Server shutting down');
  server.close();
  done();
}
