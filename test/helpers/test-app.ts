/**
 * A Strata app over a throwaway database, driven with Fastify `inject`. Bootstrapped like `npm start` does.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { readConfig } from '../../src/config/config.js';
import type { Config, DbClient } from '../../src/config/config.js';
import { createApp } from '../../src/http/app.js';
import { createAppContext, type AppContext, type ContextOptions } from '../../src/app/app-context.js';
import { insertFixtureMeta } from './fixture-meta.js';
import { TestClock } from './test-clock.js';
import { createTestDatabase, type TestDb } from './test-db.js';
import { templateFor, type Template } from './test-templates.js';
import { listenInTurn, pairMode, WorkerRelay } from './worker-pair.js';

export const ADMIN = { email: 'admin@example.com', password: 'strata-test-password', token: 'strata-test-admin-token' };

export interface TestWorker {
  app: FastifyInstance;
  context: AppContext;
}

export interface TestRequest extends InjectOptions {
  /** The admin's static token unless given; null sends none. */
  token?: string | null;
  /** In pair mode, the worker (0 or 1) that answers instead of the next in turn. */
  worker?: number;
}

export interface TestApp {
  /** The first worker's app and context (the only ones but in pair mode). */
  app: FastifyInstance;
  context: AppContext;
  /** Every worker of the app: one, or two in pair mode (TEST_WORKERS=2). */
  workers: TestWorker[];
  testDb: TestDb;
  /** The time the app measures expiry against (every worker's): `clock.advance(ms)` instead of sleeping. */
  clock: TestClock;
  /** inject, in pair mode into each worker in turn (as node:cluster hands out connections). */
  request(options: TestRequest): Promise<LightMyRequestResponse>;
  /**
   * Every worker reads the schema again, after a test changed tables outside Strata (raw DDL on `context.db`): what a
   * reload on each process is, for one worker and for two.
   */
  reloadSchema(): Promise<void>;
  /**
   * Serves on a free loopback port (in pair mode, one port served by both workers in turn); its base URL. With
   * `worker`, the port of that worker alone (in pair mode each also listens on a port of its own), for a test about
   * what one process holds (its subscription groups) while the writes it hears come through either worker.
   */
  listen(worker?: number): Promise<string>;
  /**
   * Resolves once nothing is on its way between the workers (pair mode): every notice sent so far, change events
   * included (a write's answer does not wait for those), has been acted on by the other worker. At once with one
   * worker. A test that listens on one worker's change events waits for this after each request.
   */
  relayed(): Promise<void>;
  close(): Promise<void>;
}

/** The settings every test app starts with (the admin is the one the templates are bootstrapped with). */
function testEnv(testDb: TestDb, env: Record<string, string> = {}): Record<string, string> {
  return {
    ...testDb.env,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_TOKEN: ADMIN.token,
    SECRET: 'strata-test-secret-0123456789abcdef',
    LOGIN_STALL_TIME: '20',
    LOG_LEVEL: 'silent',
    // Tests fire requests faster than any sane limit and share two cores; the limit tests switch these on.
    RATE_LIMITER_ENABLED: 'false',
    PRESSURE_LIMITER_ENABLED: 'false',
    // Uploads of tests that name no folder of their own go to the temporary folder, not the working tree.
    STORAGE_LOCAL_ROOT: path.join(tmpdir(), `strata-test-uploads-${process.pid}`),
    ...env,
  };
}

/** Settings that change what bootstrap installs or where: an app given one starts from an empty database. */
const BOOTSTRAP_SETTING = /^(ADMIN_|DB_(?!READ_THREADS$))/;

export interface TestAppOptions {
  fixture?: boolean;
  env?: Record<string, string>;
  /** Add the fixture's relational metadata (o2m, m2m, m2a). */
  relations?: boolean;
  /** Copy the run's bootstrapped template database when there is one (default); false migrates an empty one. */
  template?: boolean;
  /** More options for the app context (its clock is always the app's TestClock). */
  context?: Omit<ContextOptions, 'clock' | 'bootstrap'>;
  /**
   * Changes the settings read from `env` before the app starts, for what no setting can say: a heartbeat period
   * under the one second WEBSOCKETS_HEARTBEAT_PERIOD can give, so that a test waits fractions of a second, not seconds.
   */
  configure?: (config: Config) => void;
  /**
   * Why this test app is about one process (e.g. it counts the statements of one context's connection): it runs one
   * worker in pair mode too. Few tests need it; each says why.
   */
  oneWorker?: string;
}

export async function startTestApp(client: DbClient, options: TestAppOptions = {}): Promise<TestApp> {
  const fixture = options.fixture ?? true;
  const usesTemplate =
    options.template !== false && !Object.keys(options.env ?? {}).some((key) => BOOTSTRAP_SETTING.test(key));
  const testDb = await createTestDatabase(client, {
    fixture,
    template: usesTemplate ? await templateFor(client, fixture) : null,
  });
  const workers: TestWorker[] = [];
  try {
    const config = readConfig(testEnv(testDb, options.env));
    options.configure?.(config);
    const clock = new TestClock();
    // Not on SQLite: better-sqlite3 waits for another connection's write lock synchronously (its busy timeout), which
    // between two processes is a wait and in one thread a stall of both workers; test/cluster runs WORKERS=2 on it.
    const pair = pairMode() && !options.oneWorker && client !== 'sqlite3' ? new WorkerRelay() : null;
    const peers = pair ? [pair.join(), pair.join()] : [];
    const start = async (index: number) => {
      // On a template copy bootstrap finds every migration applied and the admin installed: it changes nothing.
      // In pair mode the second worker starts on the bootstrapped database, as cluster workers start after their primary.
      const relay = peers[index]?.transport();
      // The cluster's workers count rate limits and failed logins in their primary (RateLimiterClusterMaster): here
      // the first worker's counts are the second's, one count as there.
      const counts = index > 0 ? workers[0]!.context : undefined;
      const context = await createAppContext(config, {
        ...options.context,
        clock,
        bootstrap: index === 0,
        relay,
        counts,
      });
      if (index === 0 && options.relations) await insertFixtureMeta(context);
      const app = createApp(context, { logger: false, warm: false });
      workers.push({ app, context });
      await app.ready();
    };
    await start(0);
    if (pair) await start(1);
    return pairedApp(workers, testDb, clock, pair, peers);
  } catch (error) {
    for (const worker of workers.reverse()) await closeWorker(worker).catch(() => {});
    await testDb.drop();
    throw error;
  }
}

async function closeWorker({ app, context }: TestWorker): Promise<void> {
  await app.close();
  await context.close();
}

function pairedApp(
  workers: TestWorker[],
  testDb: TestDb,
  clock: TestClock,
  pair: WorkerRelay | null,
  peers: { disconnect(): void }[],
): TestApp {
  let turn = 0;
  let front: { url: string; close(): Promise<void> } | null = null;
  return {
    app: workers[0]!.app,
    context: workers[0]!.context,
    workers,
    testDb,
    clock,
    request({ token, worker, ...inject }) {
      const headers = { ...(inject.headers ?? {}) } as Record<string, string>;
      const bearer = token === undefined ? ADMIN.token : token;
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
      const index = worker ?? turn++ % workers.length;
      return workers[index]!.app.inject({ ...inject, headers });
    },
    async reloadSchema() {
      for (const worker of workers) await worker.context.schema.load();
    },
    async listen(worker?: number) {
      if (workers.length === 1) {
        const { server } = workers[0]!.app;
        if (!server.listening) await workers[0]!.app.listen({ host: '127.0.0.1', port: 0 });
        return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      }
      front ??= await listenInTurn(workers.map((one) => one.app));
      if (worker === undefined) return front.url;
      return `http://127.0.0.1:${(workers[worker]!.app.server.address() as { port: number }).port}`;
    },
    relayed: () => pair?.quiet() ?? Promise.resolve(),
    async close() {
      // The front port stops taking connections; it is closed once the workers have closed the ones it handed them.
      const frontClosed = front?.close();
      // Last first, each leaving the relay before it closes (a notice published meanwhile waits for no closed worker).
      for (const [index, worker] of [...workers.entries()].reverse()) {
        peers[index]?.disconnect();
        await closeWorker(worker);
      }
      await frontClosed;
      await testDb.drop();
    },
  };
}

/** Builds a run's template: a database bootstrapped as every test app is, with the blog fixture or without. */
export async function buildTemplate(client: DbClient, fixture: boolean, name: string): Promise<Template> {
  const testDb = await createTestDatabase(client, { fixture, name });
  try {
    const context = await createAppContext(readConfig(testEnv(testDb)), { bootstrap: true });
    await context.close();
  } catch (error) {
    await testDb.drop();
    throw error;
  }
  return { client, fixture, name: client === 'sqlite3' ? testDb.config.filename : name };
}

/** The parsed JSON body of a response. */
export function json<T = any>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

/** The error code of an error response. */
export function errorCode(response: LightMyRequestResponse): string | undefined {
  return json<{ errors?: { extensions: { code: string } }[] }>(response).errors?.[0]?.extensions.code;
}

/**
 * Registers on every worker's context what an extension registers in each process (a hook, a statement counter) and
 * returns one function that removes them all: in pair mode a request is answered by either worker.
 */
export function onEveryWorker(t: TestApp, register: (context: AppContext) => () => void): () => void {
  const stops = t.workers.map(({ context }) => register(context));
  return () => stops.forEach((stop) => stop());
}

/** Serves the app on a free loopback port, for clients that need a real socket (the SDK); returns its base URL. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  return t.listen();
}

export interface SecondInstance {
  app: FastifyInstance;
  context: AppContext;
  close(): Promise<void>;
}

/** Another instance on the first one's database (no bootstrap, no fixture), as a second server behind a balancer. */
export async function startSecondInstance(first: TestApp, env: Record<string, string> = {}): Promise<SecondInstance> {
  const context = await createAppContext(
    readConfig({
      ...first.testDb.env,
      SECRET: 'strata-test-secret-0123456789abcdef',
      LOG_LEVEL: 'silent',
      RATE_LIMITER_ENABLED: 'false',
      PRESSURE_LIMITER_ENABLED: 'false',
      ...env,
    }),
  );
  const app = createApp(context, { logger: false, warm: false });
  await app.ready();
  return {
    app,
    context,
    async close() {
      await app.close();
      await context.close();
    },
  };
}
