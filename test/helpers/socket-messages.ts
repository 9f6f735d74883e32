/**
 * A JSON-message WebSocket for realtime tests of either protocol (/websocket, or graphql-ws's
 * `graphql-transport-ws` spoken raw): every message is kept in arrival order until taken; `next` waits a bounded time
 * (a test fails rather than hangs), and rejects when the socket closes first.
 */
import WebSocket from 'ws';

export type Message = Record<string, any>;

export interface MessageSocket {
  socket: WebSocket;
  send(message: unknown): void;
  /** The next message not yet taken; rejects after `withinMs` or when the socket closes first. */
  next(withinMs?: number): Promise<Message>;
  /** Resolves with the close code and reason once the socket has closed. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function openMessageSocket(
  url: string,
  options: { protocol?: string; headers?: Record<string, string> } = {},
): Promise<MessageSocket> {
  const socket = new WebSocket(url, options.protocol, { headers: options.headers });
  const received: Message[] = [];
  const waiting: { resolve: (m: Message) => void; reject: (e: Error) => void }[] = [];
  let ended: string | null = null;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Message;
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(message);
    else received.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      ended = `socket closed (${code} ${String(reason)})`;
      for (const waiter of waiting.splice(0)) waiter.reject(new Error(ended));
      resolve({ code, reason: String(reason) });
    });
  });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused (${response.statusCode})`)),
    );
    socket.once('error', reject);
  });
  return {
    socket,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    next: (withinMs = 10_000) => {
      if (received.length) return Promise.resolve(received.shift()!);
      if (ended) return Promise.reject(new Error(ended));
      return new Promise<Message>((resolve, reject) => {
        const waiter = {
          resolve: (message: Message) => {
            clearTimeout(timer);
            resolve(message);
          },
          reject: (error: Error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(new Error(`no message within ${withinMs} ms`));
        }, withinMs);
        waiting.push(waiter);
      });
    },
    closed,
    close: () => socket.close(),
  };
}
