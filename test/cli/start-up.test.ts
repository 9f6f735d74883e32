/**
 * The `strata` command as a newcomer meets it: a bad setting or an unreachable database stops start-up with one
 * clear line; a fresh SQLite start bootstraps, prints the generated admin password once, and serves.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { STRATA_CLI } from '../helpers/strata-cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = STRATA_CLI;

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...env, ...extra };
}

function runCli(args: string[], env: Record<string, string>, cwd: string) {
  return spawnSync(process.execPath, [...CLI, ...args], { cwd, env: cleanEnv(env), encoding: 'utf8', timeout: 60_000 });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

describe('strata start-up', () => {
  it('stops with one line naming a bad setting', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-'));
    try {
      const result = runCli(['start'], { DB_CLIENT: 'oracle' }, dir);
      assert.equal(result.status, 1);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, /DB_CLIENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads settings from .env in the working directory, the environment winning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-'));
    try {
      writeFileSync(path.join(dir, '.env'), 'DB_CLIENT=sqlite3\nQUERY_LIMIT_MAX=abc\n');
      const result = runCli(['bootstrap'], {}, dir);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /QUERY_LIMIT_MAX/);
      const overridden = runCli(['bootstrap'], { QUERY_LIMIT_MAX: '500' }, dir);
      assert.equal(overridden.status, 0, overridden.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('retries an unreachable database, then stops with a clear message', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-'));
    try {
      const result = runCli(
        ['start'],
        {
          DB_CLIENT: 'pg',
          DB_CONNECTION_STRING: 'postgres://postgres@127.0.0.1:1/nowhere',
          DB_CONNECT_RETRIES: '2',
          DB_CONNECT_RETRY_DELAY: '10',
        },
        dir,
      );
      assert.equal(result.status, 1);
      assert.match(
        result.stderr,
        /Cannot connect to the PostgreSQL database at postgres:\/\/postgres@127\.0\.0\.1:1\/nowhere after 2 tries/,
      );
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bootstraps a fresh SQLite database with a generated password, once, and serves', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-'));
    try {
      const first = runCli(['bootstrap'], {}, dir);
      assert.equal(first.status, 0, first.stderr);
      const password = /password[^:]*:\s*(\S+)/i.exec(first.stdout)?.[1];
      assert.ok(password, `a generated password is printed: ${first.stdout}`);
      assert.ok(existsSync(path.join(dir, 'data', 'data.db')));
      const second = runCli(['bootstrap'], {}, dir);
      assert.equal(second.status, 0, second.stderr);
      assert.doesNotMatch(second.stdout, new RegExp(password!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));

      const port = await freePort();
      const server = spawn(process.execPath, [...CLI, 'start'], {
        cwd: dir,
        env: cleanEnv({ PORT: String(port), LOG_LEVEL: 'warn' }),
        stdio: 'pipe',
      });
      let stdout = '';
      server.stdout.on('data', (chunk) => (stdout += String(chunk)));
      let stopped = false;
      try {
        let body = '';
        // Up to two minutes: test files run side by side, and a loaded machine starts node and tsx slowly.
        for (let i = 0; i < 600 && body !== 'pong' && server.exitCode === null; i++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          body = await fetch(`http://127.0.0.1:${port}/server/ping`).then(
            (r) => r.text(),
            () => '',
          );
        }
        assert.equal(body, 'pong');
        const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@example.com', password }),
        });
        assert.equal(login.status, 200);

        // Another start on the same port: one clear line, not a stack trace.
        const taken = runCli(['start'], { PORT: String(port) }, dir);
        assert.equal(taken.status, 1);
        assert.equal(taken.stderr.trim().split('\n').length, 1, taken.stderr);
        assert.match(taken.stderr, new RegExp(`Can't listen on 127\\.0\\.0\\.1:${port}: .*already in use`));

        const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
        server.kill('SIGTERM');
        stopped = true;
        assert.equal(await exited, 0);
        assert.match(stdout, /Stopped on SIGTERM after \d+ ms/);
      } finally {
        if (!stopped) {
          server.kill('SIGTERM');
          await new Promise((resolve) => server.once('exit', resolve));
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
