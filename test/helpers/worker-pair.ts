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
  ) {}

  isConnected(): boolean {
    return this.connected;
  }

  /** The hub to this worker. */
  send(message: RelayMessage, callback: (error: Error | null) => void): boolean {
    const copy = structuredClone(message);
    setImmediate(() => {
      if (this.connected) this.handler(copy);
      callback(null);
    });
    return true;
  }

  /** The worker's relay transport (what clusterTransport is in a cluster worker). */
  transport(): RelayTransport {
    return {
      send: (message) => {
        const copy = structuredClone(message);
        setImmediate(() => this.connected && this.hub.receive(this, copy));
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
  }
}

/** The primary's side of a pair: one hub, a peer per worker. */
export class WorkerRelay {
  private readonly peers: InProcessPeer[] = [];
  private readonly hub = new RelayHub(() => this.peers.filter((peer) => peer.connected));

  /** A new worker's peer (its `transport()` goes to the worker's app context). */
  join(): InProcessPeer {
    const peer = new InProcessPeer(this.peers.length + 1, this.hub);
    this.peers.push(peer);
    return peer;
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
