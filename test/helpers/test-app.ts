/**
 * A Strata app over a throwaway database, driven with Fastify `inject`. Bootstrapped like `npm start` does.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { readConfig } from '../../src/config/config.js';
import type { DbClient } from '../../src/config/config.js';
import { createApp } from '../../src/http/app.js';
import { createAppContext, type AppContext } from '../../src/services/app-context.js';
import { insertFixtureMeta } from './fixture-meta.js';
import { createTestDatabase, type TestDb } from './test-db.js';

export const ADMIN = { email: 'admin@example.com', password: 'strata-test-password', token: 'strata-test-admin-token' };

export interface TestApp {
  app: FastifyInstance;
  context: AppContext;
  testDb: TestDb;
  /** inject with the admin's static token unless `token` is given (null = no token). */
  request(options: InjectOptions & { token?: string | null }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startTestApp(
  client: DbClient,
  options: { fixture?: boolean; env?: Record<string, string>; /** Add the fixture's relational metadata (o2m, m2m, m2a). */ relations?: boolean } = {},
): Promise<TestApp> {
  const testDb = await createTestDatabase(client, { fixture: options.fixture ?? true });
  try {
    const config = readConfig({
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
      ...options.env,
    });
    const context = await createAppContext(config, { bootstrap: true });
    if (options.relations) await insertFixtureMeta(context);
    const app = createApp(context, { logger: false });
    await app.ready();
    return {
      app,
      context,
      testDb,
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
    readConfig({ ...first.testDb.env, SECRET: 'strata-test-secret-0123456789abcdef', LOG_LEVEL: 'silent', RATE_LIMITER_ENABLED: 'false', PRESSURE_LIMITER_ENABLED: 'false', ...env }),
  );
  const app = createApp(context, { logger: false });
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
