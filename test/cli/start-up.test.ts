/**
 * The `strata` command as a newcomer meets it: a bad setting or an unreachable database stops start-up with one
 * clear line; a fresh SQLite start bootstraps, prints the generated admin password once, and serves.
 * The binary itself is run for the first case; the others run the same commands in this process (runCli), where
 * a stop signal is an event of the test's (the binary's own signals: npm-start-signals and readme-example).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { STRATA_CLI } from '../helpers/strata-cli.js';
import { freePort } from '../helpers/strata-process.js';
import { cliInProcess, startCliInProcess } from './cli-in-process.js';

function cleanEnv(extra: Record<string, string>): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

function runCli(args: string[], env: Record<string, string>, cwd: string) {
  return cliInProcess(args, { cwd, env: cleanEnv(env) });
}

async function inScratch(work: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-'));
  try {
    await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Side by side: each has a folder (and port) of its own.
describe('strata start-up', { concurrency: true }, () => {
  it('stops with one line naming a bad setting (the binary)', () =>
    inScratch(async (dir) => {
      const child = spawn(process.execPath, [...STRATA_CLI, 'start'], {
        cwd: dir,
        env: cleanEnv({ DB_CLIENT: 'oracle' }),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += String(chunk)));
      const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
      assert.equal(status, 1);
      const lines = stderr.trim().split('\n');
      assert.equal(lines.length, 1, stderr);
      assert.match(lines[0]!, /DB_CLIENT/);
    }));

  it('reads settings from .env in the working directory, the environment winning', () =>
    inScratch(async (dir) => {
      writeFileSync(path.join(dir, '.env'), 'DB_CLIENT=sqlite3\nQUERY_LIMIT_MAX=abc\n');
      const result = await runCli(['bootstrap'], {}, dir);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /QUERY_LIMIT_MAX/);
      const overridden = await runCli(['bootstrap'], { QUERY_LIMIT_MAX: '500' }, dir);
      assert.equal(overridden.status, 0, overridden.stderr);
      // DATA_DIR's default, ./data, is the command's working directory's.
      assert.ok(existsSync(path.join(dir, 'data', 'data.db')));
    }));

  it('retries an unreachable database, then stops with a clear message', () =>
    inScratch(async (dir) => {
      const result = await runCli(
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
    }));

  it('bootstraps a fresh SQLite database with a generated password, once, and serves', () =>
    inScratch(async (dir) => {
      const first = await runCli(['bootstrap'], {}, dir);
      assert.equal(first.status, 0, first.stderr);
      const password = /password[^:]*:\s*(\S+)/i.exec(first.stdout)?.[1];
      assert.ok(password, `a generated password is printed: ${first.stdout}`);
      assert.ok(existsSync(path.join(dir, 'data', 'data.db')));
      const second = await runCli(['bootstrap'], {}, dir);
      assert.equal(second.status, 0, second.stderr);
      assert.doesNotMatch(second.stdout, new RegExp(password!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));

      const port = await freePort();
      const signals = new EventEmitter();
      const server = startCliInProcess(['start'], {
        cwd: dir,
        env: cleanEnv({ PORT: String(port), LOG_LEVEL: 'warn' }),
        signals,
      });
      let ended = false;
      void server.done.finally(() => (ended = true));
      try {
        let body = '';
        for (let i = 0; i < 1200 && body !== 'pong' && !ended; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          body = await fetch(`http://127.0.0.1:${port}/server/ping`).then(
            (r) => r.text(),
            () => '',
          );
        }
        assert.equal(body, 'pong', server.stderr());
        const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@example.com', password }),
        });
        assert.equal(login.status, 200);

        // Another start on the same port: one clear line, not a stack trace.
        const taken = await runCli(['start'], { PORT: String(port) }, dir);
        assert.equal(taken.status, 1);
        assert.equal(taken.stderr.trim().split('\n').length, 1, taken.stderr);
        assert.match(taken.stderr, new RegExp(`Can't listen on 127\\.0\\.0\\.1:${port}: .*already in use`));

        signals.emit('SIGTERM');
        const stopped = await server.done;
        assert.equal(stopped.status, 0, stopped.stderr);
        assert.match(stopped.stdout, /Stopped on SIGTERM after \d+ ms/);
        assert.equal(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT'), 0, 'no listener left');
      } finally {
        if (!ended) {
          signals.emit('SIGTERM');
          await server.done;
        }
      }
    }));
});
