/**
 * A raw /websocket client for tests: every message is kept in arrival order until asked for (ws emits the messages
 * of one network read synchronously, so a client listening "for the next one" would lose the rest).
 */
import WebSocket from 'ws';

export type WsMessage = Record<string, any>;

export interface TestSocket {
  send(message: WsMessage): void;
  /** The next message not yet taken (waits for it; fails after 20 s rather than hang the run). */
  next(): Promise<WsMessage>;
  /** Messages received and not yet taken. */
  pending(): WsMessage[];
  close(): void;
}

/** Opens `<http url>/websocket`, authenticates with `token` when given (and checks the answer). */
export async function openSocket(url: string, token?: string): Promise<TestSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/websocket`);
  const received: WsMessage[] = [];
  const waiting: ((message: WsMessage) => void)[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as WsMessage;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else received.push(message);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const client: TestSocket = {
    send: (message) => socket.send(JSON.stringify(message)),
    next: () => {
      if (received.length) return Promise.resolve(received.shift()!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(take), 1);
          reject(new Error('no message within 20 s'));
        }, 20_000);
        const take = (message: WsMessage) => {
          clearTimeout(timer);
          resolve(message);
        };
        waiting.push(take);
      });
    },
    pending: () => [...received],
    close: () => socket.close(),
  };
  if (token) {
    client.send({ type: 'auth', access_token: token });
    const answer = await client.next();
    if (answer.status !== 'ok') throw new Error(`auth failed: ${JSON.stringify(answer)}`);
  }
  return client;
}

/** Subscribes and returns the `init` message (throws on an error answer). */
export async function subscribe(
  socket: TestSocket,
  collection: string,
  uid: string,
  query?: Record<string, unknown>,
): Promise<WsMessage> {
  socket.send({ type: 'subscribe', collection, uid, ...(query ? { query } : {}) });
  const init = await socket.next();
  if (init.event !== 'init') throw new Error(`subscribe failed: ${JSON.stringify(init)}`);
  return init;
}
