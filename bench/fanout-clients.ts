/**
 * The fan-out bench's subscribers: a child process of bench/run.ts holding many /websocket connections, each
 * authenticated with its token and subscribed to one collection. It records when each created item reached each
 * socket (epoch ms, comparable with the Strata process's emit times) and, given those emit times, answers the
 * commit-to-delivery latencies. Its own process, so that receiving does not share an event loop with the writer.
 */
import WebSocket from 'ws';
import { answerParent } from './ipc.js';

interface ConnectRequest {
  url: string;
  tokens: string[];
  collection: string;
  query: Record<string, unknown>;
}

const sockets: WebSocket[] = [];
let recording = false;
let keys: string[] = [];
let times: number[] = [];
let otherMessages = 0;

/** Opens one socket: `auth`, then `subscribe`; resolves at its `init`. */
function subscriber(request: ConnectRequest, token: string, uid: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${request.url.replace(/^http/, 'ws')}/websocket`);
    sockets.push(socket);
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`subscriber ${uid}: no init within 60 s`)), 60_000);
    socket.on('error', (error) => {
      if (!ready) reject(error);
    });
    socket.on('open', () => socket.send(JSON.stringify({ type: 'auth', access_token: token })));
    socket.on('message', (data) => {
      const at = performance.timeOrigin + performance.now();
      const message = JSON.parse(String(data)) as { type: string; event?: string; status?: string; data?: unknown };
      if (!ready) {
        if (message.type === 'auth' && message.status === 'ok') {
          socket.send(JSON.stringify({ type: 'subscribe', collection: request.collection, query: request.query, uid }));
        } else if (message.type === 'subscription' && message.event === 'init') {
          ready = true;
          clearTimeout(timer);
          resolve();
        } else {
          clearTimeout(timer);
          reject(new Error(`subscriber ${uid}: ${JSON.stringify(message)}`));
        }
        return;
      }
      if (!recording) return;
      if (message.type === 'subscription' && message.event === 'create' && Array.isArray(message.data)) {
        for (const row of message.data as { id: unknown }[]) {
          keys.push(String(row.id));
          times.push(at);
        }
      } else otherMessages++;
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

answerParent(
  {
    async connect(request: ConnectRequest) {
      // A few at a time: a thousand handshakes at once would measure the accept queue, not the hub.
      const BATCH = 50;
      for (let i = 0; i < request.tokens.length; i += BATCH) {
        await Promise.all(
          request.tokens.slice(i, i + BATCH).map((token, j) => subscriber(request, token, `s${i + j}`)),
        );
      }
      return sockets.length;
    },
    record() {
      recording = true;
      keys = [];
      times = [];
      otherMessages = 0;
    },
    received() {
      return keys.length;
    },
    /** Latency of every delivery from the emit time of its key (ms): count, p50, p99, max; deliveries without one. */
    latencies(emits: [string, number][]) {
      recording = false;
      const emitted = new Map(emits);
      const latencies = new Float64Array(keys.length);
      let matched = 0;
      for (let i = 0; i < keys.length; i++) {
        const at = emitted.get(keys[i]!);
        if (at !== undefined) latencies[matched++] = times[i]! - at;
      }
      const sorted = latencies.subarray(0, matched).sort();
      return {
        delivered: keys.length,
        unmatched: keys.length - matched,
        otherMessages,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: matched ? sorted[matched - 1]! : NaN,
      };
    },
  },
  async () => {
    for (const socket of sockets) socket.terminate();
  },
);
