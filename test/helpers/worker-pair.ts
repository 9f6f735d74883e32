/**
 * The tests' pair mode (TEST_WORKERS=2, docs/testing.md): two app contexts of one test app joined as the workers of
 * one instance are (WORKERS=2): their buses relay through the primary's own hub (src/workers/relay-hub.ts), here
 * in-process. A message crosses as IPC does: structured-cloned, later (setImmediate), in the order it was sent.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { RelayMessage, RelayTransport } from '../../src/bus/relay-bus.js';
import { RelayHub, type RelayPeer } from '../../src/workers/relay-hub.js';

/** Whether this run joins two workers behind every test app (`TEST_WORKERS=2`; unset or `1`: one). */
export function pairMode(): boolean {
  const workers = process.env.TEST_WORKERS ?? '1';
  if (workers !== '1' && workers !== '2') throw new Error(`TEST_WORKERS is 1 or 2, not ${workers}`);
  return workers === '2';
}

/** What the hub holds of one worker, and the worker's end of the channel. */
class InProcessPeer implements RelayPeer {
  connected = true;
  private handler: (message: RelayMessage) => void = () => {};
  private closed: () => void = () => {};

  constructor(
    readonly id: number,
    private readonly hub: RelayHub,
    private readonly traffic: Traffic,
  ) {}

  isConnected(): boolean {
    return this.connected;
  }

  /** The hub to this worker. */
  send(message: RelayMessage, callback: (error: Error | null) => void): boolean {
    const copy = structuredClone(message);
    this.traffic.sent();
    setImmediate(() => {
      if (this.connected) this.handler(copy);
      callback(null);
      if (copy.kind === 'acked') this.traffic.acked(this.id, copy.id);
      this.traffic.handled();
    });
    return true;
  }

  /** The worker's relay transport (what clusterTransport is in a cluster worker). */
  transport(): RelayTransport {
    return {
      send: (message) => {
        const copy = structuredClone(message);
        if (copy.kind === 'publish') this.traffic.published(this.id, copy.id);
        this.traffic.sent();
        setImmediate(() => {
          if (this.connected) this.hub.receive(this, copy);
          this.traffic.handled();
        });
      },
      onMessage: (handler) => void (this.handler = handler),
      onClose: (handler) => void (this.closed = handler),
    };
  }

  /** The worker stops: its channel closes (releasing its waiters) and the hub stops waiting for it. */
  disconnect(): void {
    if (!this.connected) return;
    this.connected = false;
    this.closed();
    this.hub.gone(this);
    this.traffic.left(this.id);
  }
}

/**
 * What is on its way between the workers: messages sent and not yet handled, and notices published and not yet
 * acknowledged (the hub acknowledges once every sibling's handlers are done). Quiet when both are none.
 */
class Traffic {
  private inFlight = 0;
  private readonly unacked = new Set<string>();
  private waiters: (() => void)[] = [];

  sent(): void {
    this.inFlight++;
  }

  handled(): void {
    this.inFlight--;
    this.check();
  }

  published(peer: number, id: number): void {
    this.unacked.add(`${peer}:${id}`);
  }

  acked(peer: number, id: number): void {
    this.unacked.delete(`${peer}:${id}`);
    this.check();
  }

  /** A worker that stopped is acknowledged nothing more: its notices are no longer waited for. */
  left(peer: number): void {
    for (const key of this.unacked) if (key.startsWith(`${peer}:`)) this.unacked.delete(key);
    this.check();
  }

  quiet(): Promise<void> {
    if (this.inFlight === 0 && this.unacked.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private check(): void {
    if (this.inFlight > 0 || this.unacked.size > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** The primary's side of a pair: one hub, a peer per worker. */
export class WorkerRelay {
  private readonly peers: InProcessPeer[] = [];
  private readonly hub = new RelayHub(() => this.peers.filter((peer) => peer.connected));
  private readonly traffic = new Traffic();

  /** A new worker's peer (its `transport()` goes to the worker's app context). */
  join(): InProcessPeer {
    const peer = new InProcessPeer(this.peers.length + 1, this.hub, this.traffic);
    this.peers.push(peer);
    return peer;
  }

  /**
   * Resolves once nothing is on its way between the workers: every notice published so far has been handled by each
   * sibling (its handlers done) and acknowledged. Change events are such notices, which a write's answer does not
   * wait for (docs/design/workers.md): a test that listens on one worker waits for this before reading what it heard.
   */
  quiet(): Promise<void> {
    return this.traffic.quiet();
  }
}

/**
 * A port served by several apps as node:cluster serves one: each new connection goes to the next app in turn
 * (round robin, cluster's default scheduling) and stays with it. The apps listen on ports of their own too (so that
 * closing them is as usual); tests use the front port.
 */
export async function listenInTurn(apps: FastifyInstance[]): Promise<{ url: string; close(): Promise<void> }> {
  for (const app of apps) await app.listen({ host: '127.0.0.1', port: 0 });
  let turn = 0;
  const front = net.createServer({ pauseOnConnect: false }, (socket) => {
    const app = apps[turn++ % apps.length]!;
    app.server.emit('connection', socket);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(front.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => front.close(() => resolve())),
  };
}
