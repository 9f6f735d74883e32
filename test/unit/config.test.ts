import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, readConfig } from '../../src/config/config.js';
import { parseDuration } from '../../src/config/duration.js';
import { hashPassword, verifyPassword } from '../../src/auth/passwords.js';

describe('config', () => {
  it('defaults to SQLite in ./data, 127.0.0.1:8055 and Directus limits', () => {
    const config = readConfig({});
    assert.equal(config.db.client, 'sqlite3');
    assert.equal(config.db.filename, path.resolve('data/data.db'));
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8055);
    assert.equal(config.accessTokenTtlMs, 900_000);
    assert.equal(config.queryLimitDefault, 100);
    assert.equal(config.queryLimitMax, -1);
    assert.equal(config.maxRelationalDepth, 10);
    assert.equal(config.secret, null);
  });

  it('reads the database settings for each client', () => {
    const pg = readConfig({ DB_CLIENT: 'pg', DB_CONNECTION_STRING: 'postgres://u:p@h:5433/d' });
    assert.equal(pg.db.client, 'pg');
    // Any scheme that names the same database (or none) is taken.
    for (const url of ['postgresql://u@h/d', 'pg://u@h/d', 'tcp://u@h/d'])
      assert.equal(readConfig({ DB_CLIENT: 'postgres', DB_CONNECTION_STRING: url }).db.connectionString, url);
    assert.equal(readConfig({ DB_CLIENT: 'mariadb', DB_CONNECTION_STRING: 'mysql://u@h/d' }).db.client, 'mysql');
    const mysql = readConfig({
      DB_CLIENT: 'mysql',
      DB_HOST: 'db',
      DB_PORT: '3307',
      DB_DATABASE: 'x',
      DB_USER: 'u',
      DB_PASSWORD: 'p',
    });
    assert.deepEqual([mysql.db.client, mysql.db.host, mysql.db.port, mysql.db.database], ['mysql', 'db', 3307, 'x']);
  });

  it('runs one worker per core by default, a SQLite file included, and one for an in-memory database', () => {
    const cores = os.availableParallelism();
    assert.equal(readConfig({}).workers, cores);
    assert.equal(readConfig({ DB_CLIENT: 'pg', DB_CONNECTION_STRING: 'postgres://u@h/d' }).workers, cores);
    assert.equal(readConfig({ DB_FILENAME: ':memory:' }).workers, 1);
    assert.equal(readConfig({ WORKERS: '3' }).workers, 3);
    assert.throws(() => readConfig({ DB_FILENAME: ':memory:', WORKERS: '2' }), /WORKERS/);
  });

  it("splits SQLite's read threads among the workers, one each at least", () => {
    const cores = os.availableParallelism();
    assert.equal(readConfig({ WORKERS: '1' }).db.readThreads, Math.min(4, Math.max(2, cores)));
    assert.equal(readConfig({ WORKERS: '2' }).db.readThreads, Math.min(4, Math.max(1, Math.round(cores / 2))));
    assert.equal(readConfig({ WORKERS: String(cores * 2) }).db.readThreads, 1);
    assert.equal(readConfig({ WORKERS: '2', DB_READ_THREADS: '3' }).db.readThreads, 3);
  });

  it('caps the default limit by the maximum', () => {
    assert.equal(readConfig({ QUERY_LIMIT_MAX: '50' }).queryLimitDefault, 50);
  });

  it('names the variable of a bad setting', () => {
    const cases: Record<string, string>[] = [
      { DB_CLIENT: 'oracle' },
      { PORT: 'eighty' },
      { PORT: '70000' },
      { ACCESS_TOKEN_TTL: 'forever' },
      { QUERY_LIMIT_DEFAULT: '0' },
      { MAX_RELATIONAL_DEPTH: '1' },
      { LOG_LEVEL: 'loud' },
      { DB_CLIENT: 'pg' },
      { DB_CLIENT: 'pg', DB_CONNECTION_STRING: 'not a url' },
      { DB_CLIENT: 'pg', DB_CONNECTION_STRING: 'mysql://root@127.0.0.1:3306/app' },
      { DB_CLIENT: 'mysql', DB_CONNECTION_STRING: 'postgresql://postgres@127.0.0.1/app' },
      { SECRET: 'short' },
      { ADMIN_EMAIL: 'nope' },
    ];
    for (const env of cases) {
      assert.throws(
        () => readConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          const named = Object.keys(env).some((name) => error.message.includes(name));
          assert.ok(named, `${error.message} should name one of ${Object.keys(env).join(', ')}`);
          return true;
        },
      );
    }
  });

  it('reads IP_TRUST_PROXY as Express does: boolean (true = one hop), hop count, or trusted addresses/CIDRs', () => {
    assert.equal(readConfig({}).ip.trustProxy, false);
    assert.equal(readConfig({ IP_TRUST_PROXY: 'false' }).ip.trustProxy, false);
    assert.equal(readConfig({ IP_TRUST_PROXY: 'true' }).ip.trustProxy, 1);
    assert.equal(readConfig({ IP_TRUST_PROXY: '0' }).ip.trustProxy, false);
    assert.equal(readConfig({ IP_TRUST_PROXY: '3' }).ip.trustProxy, 3);
    assert.deepEqual(readConfig({ IP_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, loopback' }).ip.trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'loopback',
    ]);
    assert.throws(() => readConfig({ IP_TRUST_PROXY: 'proxy.example.com' }), /IP_TRUST_PROXY/);
    assert.throws(() => readConfig({ IP_TRUST_PROXY: '10.0.0.300' }), /IP_TRUST_PROXY/);
  });

  it('reads the hardening bounds', () => {
    const defaults = readConfig({});
    assert.equal(defaults.db.statementTimeoutMs, 30_000);
    assert.equal(defaults.maxJsonDepth, 100);
    assert.deepEqual(
      [defaults.graphql.queryMaxDepth, defaults.graphql.queryMaxFields, defaults.graphql.queryMaxAliases],
      [20, 1000, 100],
    );
    assert.equal(readConfig({ DB_STATEMENT_TIMEOUT: '0' }).db.statementTimeoutMs, 0);
    assert.equal(readConfig({ DB_STATEMENT_TIMEOUT: '5s' }).db.statementTimeoutMs, 5000);
    assert.throws(() => readConfig({ DB_STATEMENT_TIMEOUT: 'soon' }), /DB_STATEMENT_TIMEOUT/);
    assert.throws(() => readConfig({ MAX_JSON_DEPTH: '1' }), /MAX_JSON_DEPTH/);
  });

  it('reads the argon2 parameters of new password hashes with Directus defaults (HASH_*)', async () => {
    assert.deepEqual(readConfig({}).hash, { memoryCost: 4096, timeCost: 3, parallelism: 1, outputLen: 32, type: 2 });
    const chosen = readConfig({
      HASH_MEMORY_COST: '8192',
      HASH_TIME_COST: '2',
      HASH_PARALLELISM: '2',
      HASH_HASH_LENGTH: '24',
      HASH_TYPE: '1',
    }).hash;
    assert.deepEqual(chosen, { memoryCost: 8192, timeCost: 2, parallelism: 2, outputLen: 24, type: 1 });
    // The parameters are written into the hash; a hash verifies by its own, whatever today's settings.
    const hashed = await hashPassword('secret', chosen);
    assert.match(hashed, /^\$argon2i\$v=19\$m=8192,t=2,p=2\$/);
    assert.equal(Buffer.from(hashed.split('$').at(-1)!, 'base64').length, 24);
    assert.equal(await verifyPassword(hashed, 'secret'), true);
    assert.equal(await verifyPassword(hashed, 'Secret'), false);
    assert.match(await hashPassword('secret', readConfig({}).hash), /^\$argon2id\$v=19\$m=4096,t=3,p=1\$/);
    for (const env of [
      { HASH_MEMORY_COST: '15', HASH_PARALLELISM: '2' },
      { HASH_MEMORY_COST: 'lots' },
      { HASH_TIME_COST: '0' },
      { HASH_TYPE: '3' },
      { HASH_HASH_LENGTH: '2' },
    ])
      assert.throws(() => readConfig(env), new RegExp(Object.keys(env)[0]!));
  });

  it('reads the tus settings: off by default, the cleanup schedule as every-N-minutes cron or a duration', () => {
    const base = { DB_CLIENT: 'sqlite3' };
    const tus = readConfig(base).storage.tus;
    assert.deepEqual(tus, {
      enabled: false,
      chunkSize: 8 * 1024 * 1024,
      expirationMs: 600_000,
      cleanupEveryMs: 300_000,
    });
    const set = readConfig({ ...base, TUS_ENABLED: 'true', TUS_CLEANUP_SCHEDULE: '* * * * *' }).storage.tus;
    assert.equal(set.enabled, true);
    assert.equal(set.cleanupEveryMs, 60_000);
    assert.equal(readConfig({ ...base, TUS_CLEANUP_SCHEDULE: '30s' }).storage.tus.cleanupEveryMs, 30_000);
    assert.throws(() => readConfig({ ...base, TUS_CLEANUP_SCHEDULE: '0 3 * * *' }), ConfigError);
  });

  it('parses durations', () => {
    assert.equal(parseDuration('15m'), 900_000);
    assert.equal(parseDuration('7d'), 604_800_000);
    assert.equal(parseDuration('900'), 900);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('soon'), null);
  });
});

describe('METRICS_* settings', () => {
  it('are off by default, with every group', () => {
    const { metrics } = readConfig({});
    assert.equal(metrics.enabled, false);
    assert.deepEqual(metrics.tokens, []);
    assert.ok(metrics.services.has('http') && metrics.services.has('database') && metrics.services.has('process'));
  });

  it('read a token list and a choice of groups, and refuse short tokens and unknown groups', () => {
    const { metrics } = readConfig({
      METRICS_ENABLED: 'true',
      METRICS_TOKENS: ' first-token-0123456789 ,second-token-0123456789',
      METRICS_SERVICES: 'database, CACHE,redis',
    });
    assert.deepEqual(metrics.tokens, ['first-token-0123456789', 'second-token-0123456789']);
    assert.deepEqual([...metrics.services].sort(), ['cache', 'database', 'redis']);
    assert.throws(() => readConfig({ METRICS_TOKENS: 'short' }), ConfigError);
    assert.throws(() => readConfig({ METRICS_SERVICES: 'database,nope' }), ConfigError);
  });
});
