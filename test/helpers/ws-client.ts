/**
 * A raw /websocket client for protocol tests: every message is queued as it arrives (a listener that is always
 * attached), so a message sent while the test is busy elsewhere (awaiting an HTTP write) is never lost.
 */
import WebSocket from 'ws';

export type WsMessage = Record<string, any>;

export interface WsClient {
  socket: WebSocket;
  send(message: unknown): void;
  /** The next message (waits for it); rejects when the socket closes first. */
  next(): Promise<WsMessage>;
  /** Resolves with the close code and reason once the server (or the client) closed the socket. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function openWs(
  baseUrl: string,
  options: { path?: string; query?: string; headers?: Record<string, string> } = {},
): Promise<WsClient> {
  const url = `${baseUrl.replace(/^http/, 'ws')}${options.path ?? '/websocket'}${options.query ? `?${options.query}` : ''}`;
  const socket = new WebSocket(url, { headers: options.headers });
  const received: WsMessage[] = [];
  const waiting: { resolve: (m: WsMessage) => void; reject: (e: Error) => void }[] = [];
  let ended = false;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as WsMessage;
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(message);
    else received.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      ended = true;
      for (const waiter of waiting.splice(0)) waiter.reject(new Error(`socket closed (${code} ${String(reason)})`));
      resolve({ code, reason: String(reason) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    next: () => {
      if (received.length) return Promise.resolve(received.shift()!);
      if (ended) return Promise.reject(new Error('socket closed'));
      return new Promise<WsMessage>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    closed,
    close: () => socket.close(),
  };
}
