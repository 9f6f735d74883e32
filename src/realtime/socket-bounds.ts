/**
 * Bounds of an upgraded `ws` socket that do not depend on the protocol spoken over it: the slow-consumer cut-off
 * (unsent data past WEBSOCKETS_MAX_BUFFER closes it with 1013) and dead-peer detection by WebSocket-level pings (a
 * peer that answered neither a ping nor sent anything for a whole WEBSOCKETS_HEARTBEAT_PERIOD is closed). The GraphQL
 * socket and /websocket use them; graphql-ws's own `ping`/`pong` messages are the client's to send, so the server pings at the
 * frame level, which every WebSocket implementation (browsers, `ws`) answers by itself.
 */
import type { WebSocket } from 'ws';

/** Close codes (RFC 6455): policy violation, and "try again later" for a client too slow to read what it is sent. */
export const POLICY_VIOLATION = 1008;
export const TRY_AGAIN_LATER = 1013;

/**
 * Closes `socket` and destroys it a second later: a peer that stopped reading (or is gone) would not read the close
 * frame either, and its backlog is not kept meanwhile.
 */
export function closeHard(socket: WebSocket, code: number, reason: string): void {
  socket.close(code, reason);
  setTimeout(() => socket.terminate(), 1000).unref();
}

/**
 * Whether `socket` is now over the buffer limit, checked after a send: when it is, it has just been closed (1013)
 * and what is still to be sent to it is dropped by the caller.
 */
export function overBuffer(socket: WebSocket, maxBufferBytes: number, onSlow: (buffered: number) => void): boolean {
  if (socket.bufferedAmount <= maxBufferBytes) return false;
  onSlow(socket.bufferedAmount);
  closeHard(socket, TRY_AGAIN_LATER, 'Slow consumer: too much unsent data');
  return true;
}

/**
 * Pings `socket` every `periodMs`; one silent (no pong, no message) for a whole period after a ping is closed.
 * `ping`: a WebSocket-level ping by default; /websocket sends its protocol's `{"type":"ping"}` message instead.
 */
export function heartbeat(socket: WebSocket, periodMs: number, ping: () => void = () => socket.ping()): void {
  let alive = true;
  const live = () => (alive = true);
  socket.on('pong', live);
  socket.on('message', live);
  const beat = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return;
    if (!alive) return void closeHard(socket, POLICY_VIOLATION, 'Heartbeat timeout: no pong');
    alive = false;
    ping();
  }, periodMs);
  beat.unref();
  socket.once('close', () => clearInterval(beat));
}
