/**
 * The ceiling of the scale mode as its own child process of bench/run.ts, like Strata: the hand-written SQL of each
 * scale scenario (bench/scale.ts) on the raw driver behind a bare node:http handler. Both sides then pay the same
 * trip — loopback HTTP into another process, woken by the kernel — where a ceiling in the bench's own process would
 * skip the wake-up (on SQLite it even answers on the timing loop's own thread).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DbClient } from '../src/config/config.js';
import { answerParent } from './ipc.js';
import { openRawDriver, scaleScenarios, type ScaleNames, type ScaleScenario } from './scale.js';

const client = process.env.DB_CLIENT as DbClient;
const raw = openRawDriver({ client, env: process.env as Record<string, string> });
let scenarios: ScaleScenario[] = [];

const server = http.createServer((request, response) => {
  const scenario = scenarios.find((s) => s.path === request.url);
  if (!scenario) return void response.writeHead(404).end();
  scenario.ceiling(raw, client).then(
    (text) =>
      response
        .writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        })
        .end(text),
    (error: Error) => response.writeHead(500).end(error.message),
  );
});

answerParent(
  {
    /** Serves the scenarios of `rows` articles with these names from now on; answers the port. */
    listen(arg: { rows: number; names: ScaleNames }) {
      scenarios = scaleScenarios(arg.rows, arg.names);
      return new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
      });
    },
  },
  async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await raw.close();
  },
);
