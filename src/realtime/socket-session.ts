/**
 * One /websocket connection speaking Directus's realtime protocol: `auth` (access or static token), `ping`/`pong`,
 * `subscribe` (collection, optional query, uid) answered with `init` and then `create`/`update`/`delete` events,
 * `unsubscribe`. Events carry keys only (change-events.ts): each subscription re-reads the changed items through the
 * read engine with THIS connection's accountability, so fields and item rules apply per subscriber and a permission
 * change applies to the next event. A subscription remembers the keys it has shown; an update of a shown item it may
 * no longer read arrives as a delete, of an unshown item it may now read as a create, and changes of items it never
 * saw and cannot read are not mentioned at all. Events are handled one at a time per connection, in arrival order.
 */
import type { AppContext } from '../services/app-context.js';
import type { Accountability } from '../permissions/accountability.js';
import { ServiceError } from '../errors/catalogue.js';
import { parseQuery } from '../request/parse-query.js';
import type { Query } from '../request/query.js';
import { keyOfValues } from '../plan/row-key.js';
import type { Key } from '../plan/mutation-plan.js';
import type { ChangeEvent } from './change-events.js';
import { consume } from '../bus/rate-limiters.js';
import { credentialsOf, expiryOf } from './socket-auth.js';
import { runItemsMessage } from './socket-items.js';
import type { SocketRegistry } from './socket-limits.js';

export interface SocketLink {
  send(message: Record<string, unknown>): void;
  close(code?: number, reason?: string): void;
}

/** Where the session reports what it cannot answer to anyone (pino's signature; the request's logger). */
export interface SocketLog {
  warn(details: Record<string, unknown>, message: string): void;
  debug(details: Record<string, unknown>, message: string): void;
}

interface Subscription {
  uid: string | undefined;
  collection: string;
  query: Query;
  /** A key field the subscriber did not ask for, read only to follow the items (removed from what is sent). */
  addedKeys: string[];
  shown: Set<string>;
}

type Message = Record<string, unknown>;

function errorOf(error: unknown): { code: string; message: string } {
  if (error instanceof ServiceError) return { code: error.code, message: error.message };
  return { code: 'INTERNAL_SERVER_ERROR', message: 'An unexpected error occurred.' };
}

/** The auth error Directus sends: TOKEN_EXPIRED and INVALID_PAYLOAD as such, any other refusal AUTH_FAILED. */
function authErrorOf(error: unknown): { code: string; message: string } {
  const kept = ['TOKEN_EXPIRED', 'INVALID_PAYLOAD', 'REQUESTS_EXCEEDED', 'AUTH_FAILED'];
  if (error instanceof ServiceError && kept.includes(error.code)) return { code: error.code, message: error.message };
  return { code: 'AUTH_FAILED', message: 'Authentication failed.' };
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export class SocketSession {
  private accountability: Accountability | null = null;
  /** The access token the socket authenticated with (re-resolved before each message and event); null = public. */
  private token: string | null = null;
  private readonly subscriptions = new Map<string, Subscription>();
  private queue: Promise<void> = Promise.resolve();
  private counter = 0;
  private authTimer: NodeJS.Timeout | null = null;
  private expiryTimer: NodeJS.Timeout | null = null;
  /** The user this socket is counted for in the per-user connection limit. */
  private countedUser: string | null = null;
  private closed = false;
  /** Handshake mode closes a socket whose first `auth` fails; a failed re-auth (after an expiry) keeps it. */
  private authenticatedOnce = false;
  private readonly stopListening: () => void;

  constructor(
    private readonly context: AppContext,
    private readonly link: SocketLink,
    private readonly ip: string | null,
    private readonly log: SocketLog,
    private readonly registry: SocketRegistry,
  ) {
    this.stopListening = context.changes.listen((event) => this.enqueue(() => this.onChange(event), event.collection));
  }

  /**
   * `token`: what the upgrade request carried (`?access_token=`, Bearer header, session cookie); it authenticates the
   * socket in every mode. Without one: strict refuses; public acts as the Public policy until an `auth`; handshake
   * waits WEBSOCKETS_REST_AUTH_TIMEOUT for the first `auth` message.
   */
  start(token: string | null): void {
    this.enqueue(() => this.begin(token), 'start');
  }

  private async begin(token: string | null): Promise<void> {
    const { auth, authTimeoutMs } = this.context.config.websockets;
    if (token || auth === 'strict') {
      try {
        if (!token) throw new ServiceError('AUTH_FAILED', 401, 'Authentication failed.');
        await this.useToken(token);
      } catch (error) {
        this.refuseAuth(error, undefined, true);
      }
    } else if (auth === 'public') {
      this.accountability = await this.context.accountability.resolve(null, this.ip);
    } else {
      this.authTimer = setTimeout(() => {
        if (this.accountability || this.closed) return;
        this.link.send({
          type: 'auth',
          status: 'error',
          error: { code: 'AUTH_TIMEOUT', message: 'Authentication timed out.' },
        });
        this.link.close(1008, 'Authentication timed out');
      }, authTimeoutMs);
      this.authTimer.unref();
    }
  }

  close(): void {
    this.closed = true;
    this.stopListening();
    if (this.authTimer) clearTimeout(this.authTimer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.releaseUser();
    this.subscriptions.clear();
  }

  /** One text frame from the client; messages are handled in order. */
  receive(text: string): void {
    const { maxMessageBytes } = this.context.config.websockets.limits;
    if (Buffer.byteLength(text) > maxMessageBytes) {
      this.link.send({
        type: 'error',
        status: 'error',
        error: { code: 'CONTENT_TOO_LARGE', message: `A message is at most ${maxMessageBytes} bytes.` },
      });
      return;
    }
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
    this.enqueue(() => this.handle(message), String(message.type));
  }

  /** Binary frames are not part of the protocol: answered, never parsed. */
  receiveBinary(): void {
    this.link.send({
      type: 'error',
      status: 'error',
      error: { code: 'INVALID_PAYLOAD', message: 'Messages are JSON text frames, not binary ones.' },
    });
  }

  /** Work runs one item at a time; a failure is logged (nothing is left to answer it) and the queue goes on. */
  private enqueue(work: () => Promise<void>, what: string): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      const { code } = errorOf(error);
      this.log.warn({ err: error, what, code }, 'WebSocket: a message or event could not be handled');
    });
  }

  private async handle(message: Message): Promise<void> {
    if (this.closed) return;
    const type = String(message.type).toLowerCase();
    const uid = typeof message.uid === 'string' || typeof message.uid === 'number' ? String(message.uid) : undefined;
    const withUid = uid !== undefined ? { uid } : {};
    const { perIp } = this.context.rateLimiters;
    if (perIp) {
      // Socket messages spend the same per-IP points as HTTP requests (RATE_LIMITER_*), as Directus does.
      try {
        await consume(perIp, this.ip ?? '');
      } catch (error) {
        return void this.link.send({ type, status: 'error', error: errorOf(error), ...withUid });
      }
    }
    if (type === 'ping') return void this.link.send({ type: 'pong', ...withUid });
    if (type === 'pong') return;
    if (type === 'auth') return this.authMessage(message, uid);
    if (!this.accountability) {
      this.link.send({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: 'Authenticate first.' } });
      return this.link.close(1008, 'Authentication required');
    }
    if (!(await this.stillAuthenticated())) return;
    try {
      if (type === 'subscribe') {
        const max = this.context.config.websockets.limits.subscriptionsPerConnection;
        if (max !== null && this.subscriptions.size >= max && !(uid !== undefined && this.subscriptions.has(uid)))
          throw new ServiceError('REQUESTS_EXCEEDED', 429, `At most ${max} subscriptions per connection.`);
        return await this.subscribe(message, uid);
      }
      if (type === 'unsubscribe') {
        if (uid === undefined) this.subscriptions.clear();
        else this.subscriptions.delete(uid);
        return;
      }
      if (type === 'items') {
        const data = await runItemsMessage(this.context, message, this.accountability);
        return void this.link.send({ type: 'items', data, ...withUid });
      }
      throw new ServiceError('INVALID_PAYLOAD', 400, `Unknown message type "${type}".`);
    } catch (error) {
      if (!(error instanceof ServiceError))
        this.log.warn({ err: error, type }, 'WebSocket: a message failed with an unexpected error');
      this.link.send({ type, status: 'error', error: errorOf(error), ...withUid });
    }
  }

  /** `auth`: a new token (access, refresh or login) replaces the socket's; subscriptions go on with the new rights. */
  private async authMessage(message: Message, uid: string | undefined): Promise<void> {
    const firstAuth = !this.authenticatedOnce;
    try {
      const credentials = await credentialsOf(this.context, message, this.ip);
      await this.useToken(credentials.token);
      this.link.send({
        type: 'auth',
        status: 'ok',
        ...(credentials.refreshToken ? { refresh_token: credentials.refreshToken } : {}),
        ...(uid !== undefined ? { uid } : {}),
      });
    } catch (error) {
      // An `auth` carrying an already expired token is a failed auth, not an expiry: the SDK answers TOKEN_EXPIRED by
      // sending its token again, which would loop for as long as the client holds no fresher one.
      const refusal =
        error instanceof ServiceError && error.code === 'TOKEN_EXPIRED'
          ? new ServiceError('AUTH_FAILED', 401, 'Authentication failed: the token has expired.')
          : error;
      this.refuseAuth(refusal, uid, firstAuth && this.context.config.websockets.auth === 'handshake');
    }
  }

  private refuseAuth(error: unknown, uid: string | undefined, close: boolean): void {
    const answer = authErrorOf(error);
    this.log.debug({ code: answer.code }, 'WebSocket: authentication refused');
    this.link.send({ type: 'auth', status: 'error', error: answer, ...(uid !== undefined ? { uid } : {}) });
    if (close || this.context.config.websockets.auth === 'strict') this.link.close(1008, 'Authentication failed');
  }

  /** Resolves `token` (throws when it is not valid) and makes it the socket's, counted against its user's limit. */
  private async useToken(token: string): Promise<void> {
    const accountability = await this.context.accountability.resolve(token, this.ip);
    const user = accountability.user ?? null;
    if (user !== this.countedUser) {
      if (user !== null && !this.registry.claimUser(user))
        throw new ServiceError('REQUESTS_EXCEEDED', 429, 'This user has as many WebSocket connections as allowed.');
      this.releaseUser();
      this.countedUser = user;
    }
    this.accountability = accountability;
    this.token = token;
    this.authenticatedOnce = true;
    if (this.authTimer) clearTimeout(this.authTimer);
    this.watchExpiry(token);
  }

  private releaseUser(): void {
    if (this.countedUser !== null) this.registry.releaseUser(this.countedUser);
    this.countedUser = null;
  }

  /** A timer at the token's expiry tells an idle socket; a busy one learns it at its next message or event. */
  private watchExpiry(token: string): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
    const expires = expiryOf(token);
    if (expires === null) return;
    const wait = Math.min(Math.max(expires - this.context.clock.now() + 1000, 0), MAX_TIMER_MS);
    this.expiryTimer = setTimeout(
      () => this.enqueue(async () => void (await this.stillAuthenticated()), 'expiry'),
      wait,
    );
    this.expiryTimer.unref();
  }

  /**
   * Re-resolves the socket's token: an expired token, a logout or a revoked session ends its rights now (the client
   * gets TOKEN_EXPIRED or AUTH_FAILED, as Directus sends them); strict mode then closes, public mode goes on as the
   * Public policy, handshake mode waits for a new `auth`. A permission change is picked up on the way.
   */
  private async stillAuthenticated(): Promise<boolean> {
    if (this.token === null || this.closed) return !this.closed;
    try {
      this.accountability = await this.context.accountability.resolve(this.token, this.ip);
      return true;
    } catch (error) {
      this.token = null;
      if (this.expiryTimer) clearTimeout(this.expiryTimer);
      this.releaseUser();
      const { auth } = this.context.config.websockets;
      this.accountability = auth === 'public' ? await this.context.accountability.resolve(null, this.ip) : null;
      this.refuseAuth(error, undefined, false);
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
    const overview = this.context.schema.current.collections[collection];
    const addedKeys =
      overview && query.fields && !query.fields.includes('*')
        ? overview.keyFields.filter((name) => !query.fields!.includes(name))
        : [];
    const subscription: Subscription = {
      uid,
      collection,
      query: addedKeys.length ? { ...query, fields: [...query.fields!, ...addedKeys] } : query,
      addedKeys,
      shown: new Set(),
    };
    // The first read checks the collection and the caller's right to read it (an error answers the subscribe).
    const { data } = await this.context.items.rowsMany(
      collection,
      { ...subscription.query, meta: undefined },
      this.accountability!,
    );
    const rows = (Array.isArray(data) ? data : data ? [data] : []) as Record<string, unknown>[];
    const key = uid ?? String(++this.counter);
    this.subscriptions.set(key, subscription);
    this.link.send({
      type: 'subscription',
      event: 'init',
      data: this.shown(subscription, rows),
      ...(uid !== undefined ? { uid } : {}),
    });
  }

  /** The rows as sent (without the key fields added to follow them), remembering their keys. */
  private shown(subscription: Subscription, rows: Record<string, unknown>[]): Record<string, unknown>[] {
    const overview = this.context.schema.current.collections[subscription.collection];
    return rows.map((row) => {
      const key = overview ? keyOfValues(overview, row) : undefined;
      if (key !== null && key !== undefined) subscription.shown.add(String(key));
      if (subscription.addedKeys.length === 0) return row;
      const copy = { ...row };
      for (const name of subscription.addedKeys) delete copy[name];
      return copy;
    });
  }

  private async onChange(event: ChangeEvent): Promise<void> {
    const concerned = [...this.subscriptions.values()].filter((s) => s.collection === event.collection);
    // An expired or revoked token delivers nothing (and says so); a socket waiting for a new `auth` hears nothing.
    if (concerned.length === 0 || !(await this.stillAuthenticated()) || !this.accountability) return;
    for (const subscription of concerned) {
      try {
        await this.deliver(subscription, event);
      } catch (error) {
        // The collection or the subscriber's rights changed under it: this event is skipped, the next tries again.
        const details = { err: error, collection: event.collection, code: errorOf(error).code };
        if (error instanceof ServiceError)
          this.log.debug(details, 'WebSocket: an event is not readable for a subscriber');
        else this.log.warn(details, 'WebSocket: an event could not be delivered');
      }
    }
  }

  private async deliver(subscription: Subscription, event: ChangeEvent): Promise<void> {
    const send = (name: string, data: unknown) =>
      this.link.send({
        type: 'subscription',
        event: name,
        data,
        ...(subscription.uid !== undefined ? { uid: subscription.uid } : {}),
      });
    if (event.action === 'delete') {
      const gone = event.keys.filter((key) => subscription.shown.delete(String(key)));
      if (gone.length) send('delete', gone);
      return;
    }
    const overview = this.context.schema.current.collections[subscription.collection];
    if (!overview) return;
    const { data } = await this.context.items.rowsKeys(
      subscription.collection,
      event.keys,
      { ...subscription.query, limit: undefined, offset: undefined, page: undefined },
      this.accountability!,
    );
    const rows = (Array.isArray(data) ? data : data ? [data] : []) as Record<string, unknown>[];
    const readable = new Set(rows.map((row) => String(keyOfValues(overview, row))));
    const entering = rows.filter(
      (row) => event.action === 'create' || !subscription.shown.has(String(keyOfValues(overview, row))),
    );
    const staying = rows.filter(
      (row) => event.action === 'update' && subscription.shown.has(String(keyOfValues(overview, row))),
    );
    const leaving: Key[] =
      event.action === 'update'
        ? event.keys.filter((key) => subscription.shown.has(String(key)) && !readable.has(String(key)))
        : [];
    if (entering.length) send('create', this.shown(subscription, entering));
    if (staying.length) send('update', this.shown(subscription, staying));
    if (leaving.length) {
      for (const key of leaving) subscription.shown.delete(String(key));
      send('delete', leaving);
    }
  }
}
