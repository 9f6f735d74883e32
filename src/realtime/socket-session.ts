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

export interface SocketLink {
  send(message: Record<string, unknown>): void;
  close(): void;
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

export class SocketSession {
  private accountability: Accountability | null = null;
  private readonly subscriptions = new Map<string, Subscription>();
  private queue: Promise<void> = Promise.resolve();
  private counter = 0;
  private authTimer: NodeJS.Timeout | null = null;
  private readonly stopListening: () => void;

  constructor(
    private readonly context: AppContext,
    private readonly link: SocketLink,
    private readonly ip: string | null,
  ) {
    this.stopListening = context.changes.listen((event) => this.enqueue(() => this.onChange(event)));
  }

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
    this.stopListening();
    if (this.authTimer) clearTimeout(this.authTimer);
    this.subscriptions.clear();
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
        if (uid === undefined) this.subscriptions.clear();
        else this.subscriptions.delete(uid);
        return;
      }
      throw new ServiceError('INVALID_PAYLOAD', 400, `Unknown message type "${type}".`);
    } catch (error) {
      this.link.send({ type, status: 'error', error: errorOf(error), ...(uid !== undefined ? { uid } : {}) });
    }
  }

  /** Resolves a token; a bad one answers AUTH_FAILED (and, before the first success in handshake mode, closes). */
  private async authenticate(token: string | null, closeOnFailure: boolean): Promise<boolean> {
    try {
      if (!token) throw new Error('no token');
      this.accountability = await this.context.accountability.resolve(token, this.ip);
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
    for (const subscription of [...this.subscriptions.values()]) {
      if (subscription.collection !== event.collection) continue;
      try {
        await this.deliver(subscription, event);
      } catch {
        // The collection or the subscriber's rights changed under it: the next event tries again.
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
