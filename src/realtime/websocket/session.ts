/**
 * One /websocket connection speaking Directus's realtime protocol: `auth` (access, static or refresh token, or a
 * login; or a token of the upgrade request), `ping`/`pong`, `subscribe` (collection, optional query, uid) answered
 * with `init` and then `create`/`update`/`delete` events, `unsubscribe`. The subscriptions themselves live in the hub
 * (subscription-hub.ts), which re-reads each change once per group of alike subscribers with their accountability and
 * hands this socket the rows it may read. Messages are handled one at a time, in order; `items` messages run through
 * the REST services (socket-items.ts); the token is resolved again before each message and checked before events
 * (docs/design/realtime-fan-out.md), and at once when a rights notice comes (rights-notices.ts: access rows changed, its login ended):
 * until then events wait, and those read under rights the socket no longer has are dropped (`generation`); new rights
 * move its subscriptions (the hub ends those they cannot serve). Limits: socket-limits.ts, subscription-quota.ts and
 * the route.
 */
import type { RealtimeApi } from '../../app/ports.js';
import type { Accountability } from '../../permissions/accountability.js';
import { ServiceError } from '../../errors/catalogue.js';
import { toServiceError } from '../../errors/to-service-error.js';
import { parseQuery } from '../../request/parse-query.js';
import { jsonBodyKey, prototypeKeyReason, refusedKeyPath } from '../../request/prototype-keys.js';
import type { HubSubscription } from '../hub/subscription-hub.js';
import { consume } from '../../bus/rate-limiters.js';
import { credentialsOf } from './auth-message.js';
import { sameRights } from '../rights-notices.js';
import { SocketCredential } from '../socket-credential.js';
import { runItemsMessage } from './items-message.js';
import type { SocketCounter } from '../socket-counters.js';

export interface SocketLink {
  send(message: Record<string, unknown>): void;
  /** A message already serialised. */
  sendText(text: string): void;
  close(code?: number, reason?: string): void;
}

/** Where the session reports what it cannot answer to anyone (pino's signature; the request's logger). */
export interface SocketLog {
  warn(details: Record<string, unknown>, message: string): void;
  debug(details: Record<string, unknown>, message: string): void;
}

type Message = Record<string, unknown>;

function errorOf(error: unknown): { code: string; message: string } {
  const service = toServiceError(error);
  return { code: service.code, message: service.message };
}

/** The auth error Directus sends: TOKEN_EXPIRED and INVALID_PAYLOAD as such, any other refusal AUTH_FAILED. */
function authErrorOf(error: unknown): { code: string; message: string } {
  const kept = ['TOKEN_EXPIRED', 'INVALID_PAYLOAD', 'REQUESTS_EXCEEDED', 'AUTH_FAILED'];
  if (error instanceof ServiceError && kept.includes(error.code)) return { code: error.code, message: error.message };
  return { code: 'AUTH_FAILED', message: 'Authentication failed.' };
}

/**
 * What a refused `auth` message answers, as Directus does: any failure (a wrong or missing password, a malformed
 * message, an unknown or already expired token) is AUTH_FAILED, "Authentication handshake failed." for the first
 * message of a handshake socket, "Authentication failed." after. An expired token is not TOKEN_EXPIRED here: the SDK
 * answers that by sending its token again, which would loop. Only the per-user socket limit keeps its own code.
 */
function authMessageRefusal(error: unknown, handshake: boolean): ServiceError {
  if (error instanceof ServiceError && error.code === 'REQUESTS_EXCEEDED') return error;
  const message = handshake ? 'Authentication handshake failed.' : 'Authentication failed.';
  return new ServiceError('AUTH_FAILED', 401, message);
}

/** A subscribe's `event`: only that kind of change is sent (Directus docs: WebSockets, Subscriptions). */
function subscribedEvent(event: unknown): 'create' | 'update' | 'delete' | undefined {
  if (event === undefined) return undefined;
  if (event === 'create' || event === 'update' || event === 'delete') return event;
  throw new ServiceError('INVALID_PAYLOAD', 400, '"event" is one of create, update, delete.');
}

export class SocketSession {
  private accountability: Accountability | null = null;
  /** The access token the socket authenticated with (re-resolved before messages and events); no token = public. */
  private readonly credential: SocketCredential;
  /** By the client's uid (a string), or by a number for one without a uid: the two never collide. */
  private readonly subscriptions = new Map<string | number, HubSubscription>();
  private queue: Promise<void> = Promise.resolve();
  private counter = 0;
  private authTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private rechecking = false;
  /** Changes whenever the socket's rights do (auth, expiry): an event read under older rights is dropped. */
  private generation = 0;
  /** Events waiting in the queue behind a re-resolve: later ones queue too, to keep their order. */
  private queuedEvents = 0;
  /** Handshake mode closes a socket whose first `auth` fails; a failed re-auth (after an expiry) keeps it. */
  private authenticatedOnce = false;

  constructor(
    private readonly context: RealtimeApi,
    private readonly link: SocketLink,
    private readonly ip: string | null,
    private readonly log: SocketLog,
    registry: SocketCounter,
  ) {
    this.credential = new SocketCredential(
      context,
      registry,
      ip,
      () => this.enqueue(async () => void (await this.stillAuthenticated()), 'expiry'),
      () => this.recheck(),
    );
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
      this.accountability = await this.credential.publicAccess();
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
    if (this.authTimer) clearTimeout(this.authTimer);
    this.credential.close();
    this.unsubscribe(undefined);
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
    // What a JSON body may not hold, a message may not either (its `data` becomes item payloads).
    const refused = refusedKeyPath(message, '', jsonBodyKey);
    if (refused !== null) {
      const uid =
        typeof message.uid === 'string' || typeof message.uid === 'number' ? { uid: String(message.uid) } : {};
      this.link.send({
        type: String(message.type).toLowerCase(),
        status: 'error',
        error: { code: 'INVALID_PAYLOAD', message: prototypeKeyReason(refused) },
        ...uid,
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
    if (type === 'pong') return;
    if (type !== 'auth' && !this.authenticatedOnce && this.context.config.websockets.auth === 'handshake') {
      // Directus's handshake takes nothing but an `auth` first, not even a ping (a `pong` answers our heartbeat).
      this.link.send({
        type: 'auth',
        status: 'error',
        error: { code: 'AUTH_FAILED', message: 'Authentication handshake failed.' },
      });
      return this.link.close(1008, 'Authentication required');
    }
    if (type === 'ping') return void this.link.send({ type: 'pong', ...withUid });
    if (type === 'auth') return this.authMessage(message, uid);
    if (!this.accountability) {
      this.link.send({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: 'Authenticate first.' } });
      return this.link.close(1008, 'Authentication required');
    }
    if (!(await this.stillAuthenticated(true))) return;
    try {
      if (type === 'subscribe') {
        const max = this.context.config.websockets.limits.subscriptionsPerConnection;
        if (max !== null && this.subscriptions.size >= max && !(uid !== undefined && this.subscriptions.has(uid)))
          throw new ServiceError('REQUESTS_EXCEEDED', 429, `At most ${max} subscriptions per connection.`);
        return await this.subscribe(message, uid);
      }
      if (type === 'unsubscribe') {
        // Answered as Directus answers it, whether or not the uid named a subscription.
        this.unsubscribe(uid);
        return void this.link.send({ type: 'subscription', event: 'unsubscribe', ...withUid });
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
      const handshake = firstAuth && this.context.config.websockets.auth === 'handshake';
      this.refuseAuth(authMessageRefusal(error, handshake), uid, handshake);
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
    const accountability = await this.credential.use(token);
    this.accountability = accountability;
    this.generation++;
    this.authenticatedOnce = true;
    for (const subscription of this.subscriptions.values()) subscription.setAccountability(accountability);
    if (this.authTimer) clearTimeout(this.authTimer);
  }

  /**
   * Re-resolves the socket's token (or, without one, the Public policy) when it is stale: an expired token, a logout
   * or a revoked session ends its rights now (the client gets TOKEN_EXPIRED or AUTH_FAILED, as Directus sends them);
   * strict mode then closes, public mode goes on as the Public policy, handshake mode waits for a new `auth`. Other
   * rights (a new role, a policy detached, a demotion) move the subscriptions to them; the hub tells a subscription
   * that can no longer read what it asked for, and ends it.
   */
  private async stillAuthenticated(always = false): Promise<boolean> {
    if (this.closed) return false;
    if (!this.accountability || !(always || this.credential.stale())) return true;
    try {
      let next: Accountability;
      // A notice that arrives during the resolve makes it stale again: resolved once more (a bounded few times).
      for (let tries = 0; ; tries++) {
        next = this.credential.token === null ? await this.credential.publicAccess() : await this.credential.refresh();
        if (!this.credential.stale() || tries === 2) break;
      }
      if (!this.closed) this.adopt(next);
      return !this.closed;
    } catch (error) {
      this.generation++;
      const { auth } = this.context.config.websockets;
      this.accountability = auth === 'public' ? await this.credential.publicAccess() : null;
      // Public mode: the subscriptions go on as the Public policy; handshake: they wait (deliver) for an `auth`.
      if (this.accountability)
        for (const subscription of this.subscriptions.values()) subscription.setAccountability(this.accountability);
      this.refuseAuth(error, undefined, false);
      return false;
    }
  }

  /** The rights the socket's token resolves to now; events read under different ones are dropped (generation). */
  private adopt(next: Accountability): void {
    const changed = !sameRights(this.accountability, next);
    this.accountability = next;
    if (!changed) return;
    this.generation++;
    for (const subscription of this.subscriptions.values()) subscription.setAccountability(next);
  }

  /**
   * An event from the hub (called synchronously). Sent at once while the socket's token is known good; when it has
   * expired on the clock, or was last resolved too long ago (a logout or a revoked session would not show
   * otherwise), the token is re-resolved first and this event, and any after it until that is done, go through the
   * queue in order: none reaches a socket whose rights ended, and none read under older rights is sent.
   */
  private deliver(text: string): void {
    if (this.closed || !this.accountability) return;
    const stale = this.credential.stale();
    if (!stale && this.queuedEvents === 0) return this.link.sendText(text);
    if (stale) this.recheck();
    const generation = this.generation;
    this.queuedEvents++;
    this.enqueue(async () => {
      this.queuedEvents--;
      // A notice may have come after this event was queued (behind an earlier recheck): resolved first.
      if (!(await this.stillAuthenticated())) return;
      if (!this.closed && this.accountability && generation === this.generation) this.link.sendText(text);
    }, 'event');
  }

  private recheck(): void {
    if (this.rechecking) return;
    this.rechecking = true;
    this.enqueue(async () => {
      try {
        await this.stillAuthenticated();
      } finally {
        this.rechecking = false;
      }
    }, 'recheck');
  }

  /** One subscription, or (no uid) all of them. */
  private unsubscribe(uid: string | undefined): void {
    for (const [key, subscription] of this.subscriptions) {
      if (uid !== undefined && key !== uid) continue;
      subscription.close();
      this.subscriptions.delete(key);
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
    const only = subscribedEvent(message.event);
    const tail = uid !== undefined ? `,"uid":${JSON.stringify(uid)}}` : '}';
    const key = uid ?? ++this.counter;
    let subscription: HubSubscription;
    for (let attempt = 1; ; attempt++) {
      const generation = this.generation;
      subscription = await this.context.subscriptions.subscribe({
        collection,
        query,
        accountability: this.accountability!,
        ip: this.ip,
        replaces: this.subscriptions.get(key),
        sink: {
          // The hub fans out one serialised list to many sockets: the message is spliced around it, not re-encoded.
          event: (name, _data, json, items, apart) => {
            if (only !== undefined && name !== only) return;
            // Directus announces each created item apart (one message each), and each item of an array update; an
            // update of keys with one data or a delete as one message.
            if (name !== 'create' && !apart)
              return this.deliver(`{"type":"subscription","event":"${name}","data":${json}${tail}`);
            for (const item of items) this.deliver(`{"type":"subscription","event":"${name}","data":[${item}]${tail}`);
          },
          error: (error, ended) => {
            if (ended && this.subscriptions.get(key) === subscription) this.subscriptions.delete(key);
            this.link.send({ type: 'subscribe', status: 'error', error, ...(uid !== undefined ? { uid } : {}) });
          },
        },
      });
      // A rights notice during the first read: the rights are resolved again; if they changed, the `init` read under
      // the old ones is not sent (subscribed again with the new ones); if they ended, the client was told.
      if (!(await this.stillAuthenticated()) || !this.accountability) return subscription.close();
      if (generation === this.generation) break;
      subscription.close();
      if (attempt === 2) throw new ServiceError('SERVICE_UNAVAILABLE', 503, 'Rights kept changing; subscribe again.');
    }
    // A subscribe reusing a uid replaces that subscription.
    this.subscriptions.get(key)?.close();
    this.subscriptions.set(key, subscription);
    // With `event`, Directus's `init` carries no rows: the subscriber asked for changes only.
    this.link.send({
      type: 'subscription',
      event: 'init',
      ...(only === undefined ? { data: subscription.init } : {}),
      ...(uid !== undefined ? { uid } : {}),
    });
  }
}
