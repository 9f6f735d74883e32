/**
 * A raw /websocket client for tests: every message is kept in arrival order until asked for (ws emits the messages
 * of one network read synchronously, so a client listening "for the next one" would lose the rest). `openSocket` for
 * subscription tests; `openWs` (raw frames, headers, query, the close code) for protocol tests.
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
  /** The server process that took the socket, when it names itself (X-Strata-Worker, with WORKERS > 1). */
  worker?: string;
}

/** Opens `<http url>/websocket`, authenticates with `token` when given (and checks the answer). */
export async function openSocket(url: string, token?: string): Promise<TestSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/websocket`);
  const received: WsMessage[] = [];
  const waiting: ((message: WsMessage) => void)[] = [];
  let worker: string | undefined;
  socket.once('upgrade', (response) => (worker = response.headers['x-strata-worker'] as string | undefined));
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
    ...(worker ? { worker } : {}),
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

/**
 * The rows of the next `count` items of one event kind, over as many messages as they came in (the hub sends events
 * that queued up behind a re-read as one message).
 */
export async function nextRows(socket: TestSocket, event: string, count: number): Promise<WsMessage[]> {
  const rows: WsMessage[] = [];
  while (rows.length < count) {
    const message = await socket.next();
    if (message.event !== event) throw new Error(`expected ${event}, got ${JSON.stringify(message)}`);
    rows.push(...(message.data as WsMessage[]));
  }
  return rows;
}

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

/** An upgrade the server refuses before it becomes a socket: the HTTP status and JSON body it answered. */
export function refusedUpgrade(
  wsUrl: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: WsMessage }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, { headers });
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += String(chunk)));
      response.on('end', () => {
        socket.terminate();
        resolve({ status: response.statusCode ?? 0, body: text ? (JSON.parse(text) as WsMessage) : {} });
      });
    });
    socket.on('open', () => {
      socket.close();
      reject(new Error(`the upgrade to ${wsUrl} was accepted`));
    });
    socket.on('error', () => {});
  });
}
