/**
 * An HTTP receiver on loopback for the flows' request operations: records every request (method, headers, body),
 * answers 200 (or what `answer` says), and can be stopped and started again on the same port (an outage).
 */
import { once } from 'node:events';
import http from 'node:http';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class FlowReceiver {
  readonly received: Received[] = [];
  answer: (request: Received) => number = () => 200;
  private server: http.Server | null = null;

  constructor(public port = 0) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry = {
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const status = this.answer(entry);
        if (status < 300) this.received.push(entry);
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ok: status < 300 }));
      });
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }

  /** The parsed JSON bodies received. */
  bodies(): any[] {
    return this.received.map((r) => JSON.parse(r.body || 'null'));
  }
}

/** Polls `check` every 20 ms until it holds, for at most `ms`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Timed out waiting for ${what}`);
}
