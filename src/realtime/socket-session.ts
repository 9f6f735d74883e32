/**
 * One /websocket connection speaking Directus's realtime protocol: `auth` (access or static token), `ping`/`pong`,
 * `subscribe` (collection, optional query, uid) answered with `init` and then `create`/`update`/`delete` events,
 * `unsubscribe`. The subscriptions themselves live in the hub (subscription-hub.ts), which re-reads each change once
 * per group of alike subscribers with their accountability and hands this socket the rows it may read; a re-auth
 * moves this socket's subscriptions to the group of its new access. Messages are handled one at a time, in order.
 */
import type { AppContext } from '../services/app-context.js';
import type { Accountability } from '../permissions/accountability.js';
import { ServiceError } from '../errors/catalogue.js';
import { parseQuery } from '../request/parse-query.js';
import type { HubSubscription } from './subscription-hub.js';

export interface SocketLink {
  send(message: Record<string, unknown>): void;
  /** A message already serialised. */
  sendText(text: string): void;
  close(): void;
}

type Message = Record<string, unknown>;

function errorOf(error: unknown): { code: string; message: string } {
  if (error instanceof ServiceError) return { code: error.code, message: error.message };
  return { code: 'INTERNAL_SERVER_ERROR', message: 'An unexpected error occurred.' };
}

export class SocketSession {
  private accountability: Accountability | null = null;
  private readonly subscriptions = new Map<string, HubSubscription>();
  private queue: Promise<void> = Promise.resolve();
  private counter = 0;
  private authTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly context: AppContext,
    private readonly link: SocketLink,
    private readonly ip: string | null,
  ) {}

  /** public: unauthenticated sockets act as the Public policy until they `auth`; handshake: `auth` must come first. */
  start(token: string | null): void {
    this.enqueue(() => this.begin(token));
  }

  private async begin(token: string | null): Promise<void> {
    const { auth, authTimeoutMs } = this.context.config.websockets;
    if (auth === 'strict') {
      if (!(await this.authenticate(token, false))) return;
    } else if (auth === 'public') {
      this.accountability = await this.context.accountability.resolve(null, this.ip);
    } else {
      this.authTimer = setTimeout(() => {
        if (this.accountability) return;
        this.link.send({
          type: 'auth',
          status: 'error',
          error: { code: 'AUTH_TIMEOUT', message: 'Authentication timed out.' },
        });
        this.link.close();
      }, authTimeoutMs);
      this.authTimer.unref();
    }
  }

  close(): void {
    if (this.authTimer) clearTimeout(this.authTimer);
    this.unsubscribe(undefined);
  }

  /** One text frame from the client; messages are handled in order. */
  receive(text: string): void {
    let message: Message;
    try {
      const parsed: unknown = JSON.parse(text);
      if (
        !parsed ||
        typeof parsed !== 'object' ||
        Array.isArray(parsed) ||
        typeof (parsed as Message).type !== 'string'
      )
        throw new Error();
      message = parsed as Message;
    } catch {
      this.link.send({
        type: 'error',
        status: 'error',
        error: { code: 'INVALID_PAYLOAD', message: 'A message is a JSON object with a "type".' },
      });
      return;
    }
    this.enqueue(() => this.handle(message));
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch(() => {});
  }

  private async handle(message: Message): Promise<void> {
    const type = String(message.type).toLowerCase();
    const uid = typeof message.uid === 'string' || typeof message.uid === 'number' ? String(message.uid) : undefined;
    if (type === 'ping') return void this.link.send({ type: 'pong', ...(uid ? { uid } : {}) });
    if (type === 'pong') return;
    if (type === 'auth') {
      const token = typeof message.access_token === 'string' ? message.access_token : null;
      if (await this.authenticate(token, this.context.config.websockets.auth === 'handshake' && !this.accountability))
        this.link.send({ type: 'auth', status: 'ok' });
      return;
    }
    if (!this.accountability) {
      this.link.send({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: 'Authenticate first.' } });
      return this.link.close();
    }
    try {
      if (type === 'subscribe') return await this.subscribe(message, uid);
      if (type === 'unsubscribe') {
        return this.unsubscribe(uid);
      }
      throw new ServiceError('INVALID_PAYLOAD', 400, `Unknown message type "${type}".`);
    } catch (error) {
      this.link.send({ type, status: 'error', error: errorOf(error), ...(uid !== undefined ? { uid } : {}) });
    }
  }

  /** One subscription, or (no uid) all of them. */
  private unsubscribe(uid: string | undefined): void {
    for (const [key, subscription] of this.subscriptions) {
      if (uid !== undefined && key !== uid) continue;
      subscription.close();
      this.subscriptions.delete(key);
    }
  }

  /** Resolves a token; a bad one answers AUTH_FAILED (and, before the first success in handshake mode, closes). */
  private async authenticate(token: string | null, closeOnFailure: boolean): Promise<boolean> {
    try {
      if (!token) throw new Error('no token');
      const accountability = await this.context.accountability.resolve(token, this.ip);
      this.accountability = accountability;
      for (const subscription of this.subscriptions.values()) subscription.setAccountability(accountability);
      if (this.authTimer) clearTimeout(this.authTimer);
      return true;
    } catch {
      this.link.send({
        type: 'auth',
        status: 'error',
        error: { code: 'AUTH_FAILED', message: 'Authentication failed.' },
      });
      if (closeOnFailure || this.context.config.websockets.auth === 'strict') this.link.close();
      return false;
    }
  }

  private async subscribe(message: Message, uid: string | undefined): Promise<void> {
    const collection = message.collection;
    if (typeof collection !== 'string' || collection === '')
      throw new ServiceError('INVALID_PAYLOAD', 400, '"collection" is required to subscribe.');
    const { config } = this.context;
    const raw = message.query && typeof message.query === 'object' ? (message.query as Record<string, unknown>) : {};
    const query = parseQuery(raw, {
      queryLimitMax: config.queryLimitMax,
      maxRelationalDepth: config.maxRelationalDepth,
      maxJsonQueryDepth: config.maxJsonQueryDepth,
    });
    const tail = uid !== undefined ? `,"uid":${JSON.stringify(uid)}}` : '}';
    const key = uid ?? String(++this.counter);
    // The hub fans out one serialised list to many sockets: the message is spliced around it, not re-encoded.
    const subscription = await this.context.subscriptions.subscribe({
      collection,
      query,
      accountability: this.accountability!,
      sink: {
        event: (name, _data, json) =>
          this.link.sendText(`{"type":"subscription","event":"${name}","data":${json}${tail}`),
        error: (error, ended) => {
          if (ended && this.subscriptions.get(key) === subscription) this.subscriptions.delete(key);
          this.link.send({ type: 'subscribe', status: 'error', error, ...(uid !== undefined ? { uid } : {}) });
        },
      },
    });
    // A subscribe reusing a uid replaces that subscription.
    this.subscriptions.get(key)?.close();
    this.subscriptions.set(key, subscription);
    this.link.send({
      type: 'subscription',
      event: 'init',
      data: subscription.init,
      ...(uid !== undefined ? { uid } : {}),
    });
  }
}
