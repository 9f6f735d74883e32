/**
 * Start-up against a database server that answers but refuses: a wrong password, an unknown user or a database that
 * does not exist is told at once, in one line, exit 1; only a server that cannot be reached (connection refused, a
 * timeout) is retried. A connection URL of one database with DB_CLIENT naming the other is one line too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cliInProcess } from './cli-in-process.js';

async function start(env: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-'));
  try {
    return await cliInProcess(['start'], {
      cwd: dir,
      // Retries that would show: several tries, far apart.
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DB_CONNECT_RETRIES: '3',
        DB_CONNECT_RETRY_DELAY: '1000',
        ...env,
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The server's URL with another user, password or database. */
function variant(base: string, change: { user?: string; password?: string; database?: string }): string {
  const url = new URL(base);
  if (change.user !== undefined) url.username = change.user;
  if (change.password !== undefined) url.password = change.password;
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  return url.toString();
}

function assertOneLine(result: { status: number; stdout: string; stderr: string }, pattern: RegExp): void {
  assert.equal(result.status, 1, result.stderr);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(result.stdout + result.stderr, /not reachable|retrying|after \d+ tries/, 'no retries');
}

const servers = [
  { label: 'postgres', client: 'pg', url: process.env.TEST_PG_URL },
  { label: 'mysql', client: 'mysql', url: process.env.TEST_MYSQL_URL },
].filter((server): server is { label: string; client: string; url: string } => Boolean(server.url));

for (const { label, client, url } of servers) {
  describe(`start-up refusals (${label})`, { concurrency: true }, () => {
    it('a database that does not exist is told at once, in one line', async () => {
      const result = await start({
        DB_CLIENT: client,
        DB_CONNECTION_STRING: variant(url, { database: 'strata_no_such_database' }),
      });
      assertOneLine(result, /strata_no_such_database/);
    });

    // PostgreSQL servers set to trust local connections take any password, but not a user that does not exist.
    it('a wrong password or an unknown user is told at once, in one line, the password hidden', async () => {
      const result = await start({
        DB_CLIENT: client,
        DB_CONNECTION_STRING: variant(url, { user: 'strata_no_such_user', password: 'wrong-password' }),
      });
      assertOneLine(result, /strata_no_such_user/);
      assert.doesNotMatch(result.stderr, /wrong-password/);
      if (client === 'mysql') {
        const wrong = await start({ DB_CLIENT: client, DB_CONNECTION_STRING: variant(url, { password: 'wrong' }) });
        assertOneLine(wrong, /denied/i);
      }
    });
  });
}

describe('start-up: a connection URL for the other database', { concurrency: true }, () => {
  const cases = [
    { client: 'pg', url: 'mysql://root@127.0.0.1:3306/app', scheme: 'mysql' },
    { client: 'mysql', url: 'postgres://postgres@127.0.0.1:5432/app', scheme: 'postgres' },
    { client: 'postgres', url: 'mariadb://root@127.0.0.1:3306/app', scheme: 'mariadb' },
  ];
  for (const { client, url, scheme } of cases) {
    it(`a ${scheme}:// URL with DB_CLIENT=${client} is one line naming both settings`, async () => {
      const result = await start({ DB_CLIENT: client, DB_CONNECTION_STRING: url });
      assert.equal(result.status, 1, result.stderr);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, /DB_CONNECTION_STRING/);
      assert.match(lines[0]!, new RegExp(`${scheme}://`));
      assert.match(lines[0]!, new RegExp(`DB_CLIENT`));
      assert.doesNotMatch(result.stdout, /not reachable|retrying/);
    });
  }
});
