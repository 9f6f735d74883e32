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

export const ADMIN = { email: 'admin@example.com', password: 'strata-test-password', token: 'strata-test-admin-token' };

export interface TestApp {
  app: FastifyInstance;
  context: AppContext;
  testDb: TestDb;
  /** The time the app measures expiry against: `clock.advance(ms)` instead of sleeping. */
  clock: TestClock;
  /** inject with the admin's static token unless `token` is given (null = no token). */
  request(options: InjectOptions & { token?: string | null }): Promise<LightMyRequestResponse>;
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
}

export async function startTestApp(client: DbClient, options: TestAppOptions = {}): Promise<TestApp> {
  const fixture = options.fixture ?? true;
  const usesTemplate =
    options.template !== false && !Object.keys(options.env ?? {}).some((key) => BOOTSTRAP_SETTING.test(key));
  const testDb = await createTestDatabase(client, {
    fixture,
    template: usesTemplate ? await templateFor(client, fixture) : null,
  });
  try {
    const config = readConfig(testEnv(testDb, options.env));
    options.configure?.(config);
    // On a template copy bootstrap finds every migration applied and the admin installed: it changes nothing.
    const clock = new TestClock();
    const context = await createAppContext(config, { ...options.context, clock, bootstrap: true });
    if (options.relations) await insertFixtureMeta(context);
    const app = createApp(context, { logger: false, warm: false });
    await app.ready();
    return {
      app,
      context,
      testDb,
      clock,
      request({ token, ...inject }) {
        const headers = { ...(inject.headers ?? {}) } as Record<string, string>;
        const bearer = token === undefined ? ADMIN.token : token;
        if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
        return app.inject({ ...inject, headers });
      },
      async close() {
        await app.close();
        await context.close();
        await testDb.drop();
      },
    };
  } catch (error) {
    await testDb.drop();
    throw error;
  }
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

/** Serves the app on a free loopback port, for clients that need a real socket (the SDK); returns its base URL. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
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
