import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, readConfig } from '../../src/config/config.js';
import { parseDuration } from '../../src/config/duration.js';

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
    const mysql = readConfig({ DB_CLIENT: 'mysql', DB_HOST: 'db', DB_PORT: '3307', DB_DATABASE: 'x', DB_USER: 'u', DB_PASSWORD: 'p' });
    assert.deepEqual([mysql.db.client, mysql.db.host, mysql.db.port, mysql.db.database], ['mysql', 'db', 3307, 'x']);
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
      { SECRET: 'short' },
      { ADMIN_EMAIL: 'nope' },
    ];
    for (const env of cases) {
      assert.throws(() => readConfig(env), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const named = Object.keys(env).some((name) => error.message.includes(name));
        assert.ok(named, `${error.message} should name one of ${Object.keys(env).join(', ')}`);
        return true;
      });
    }
  });

  it('parses durations', () => {
    assert.equal(parseDuration('15m'), 900_000);
    assert.equal(parseDuration('7d'), 604_800_000);
    assert.equal(parseDuration('900'), 900);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('soon'), null);
  });
});
