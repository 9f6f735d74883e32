/**
 * `npm start` runs npm → scripts/start.mjs → the server: a stop signal sent to the outermost process (as a shell, a
 * container runtime or a process manager sends it) must stop the server too, which logs one line and frees the port.
 * Before start.mjs passed signals on, the server kept running, orphaned.
 *
 * Under `npm test` the chain runs in a scratch copy of the package (package.json and start.mjs as they are) whose
 * dist/cli/index.js loads the CLI bundle the run already built: start.mjs finds nothing to compile, where in the
 * repository it would first rebuild dist/ with tsc (half a minute of CPU) whenever src/ is newer. Building is not
 * what this test is about; run directly (no bundle), it uses the repository itself.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../helpers/strata-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function pings(url: string): Promise<boolean> {
  return fetch(`${url}/server/ping`).then(
    (r) => r.ok,
    () => false,
  );
}

/** A package root where `npm start` serves the bundled CLI (see above), or the repository without a bundle. */
function packageRoot(scratch: string): string {
  const bundle = process.env.STRATA_TEST_CLI;
  if (!bundle) return ROOT;
  const root = path.join(scratch, 'package');
  mkdirSync(path.join(root, 'scripts'), { recursive: true });
  mkdirSync(path.join(root, 'src'));
  mkdirSync(path.join(root, 'dist', 'cli'), { recursive: true });
  copyFileSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
  for (const script of ['start.mjs', 'build-native.mjs', 'studio-build.mjs'])
    copyFileSync(path.join(ROOT, 'scripts', script), path.join(root, 'scripts', script));
  writeFileSync(path.join(root, 'dist', 'cli', 'index.js'), `import ${JSON.stringify(pathToFileURL(bundle).href)};\n`);
  return root;
}

/** `npm start` in a process group of its own, on a SQLite file in `dir`, serving on a free port. */
async function startNpm(dir: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The admin app is left out: its build is the e2e tests' business, not this one's.
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: packageRoot(dir),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: path.join(dir, 'data'),
      DB_CLIENT: 'sqlite3',
      DB_FILENAME: path.join(dir, 'data', 'strata.db'),
      ADMIN_APP_ENABLED: 'false',
      LOG_LEVEL: 'info',
      ADMIN_PASSWORD: 'npm-start-signal-test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that whatever it leaves behind can be ended by the test.
    detached: true,
  });
  const run = { npm, url, output: '' };
  npm.stdout.on('data', (chunk) => (run.output += chunk));
  npm.stderr.on('data', (chunk) => (run.output += chunk));
  let up = false;
  for (let i = 0; i < 1800 && !up && npm.exitCode === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    up = await pings(url);
  }
  assert.ok(up, `the server started:\n${run.output}`);
  return run;
}

// Side by side: each has its own folder, port and process group.
describe('npm start', { concurrency: true }, () => {
  it(
    'Ctrl-C (SIGINT to the whole process group) stops the server cleanly, saying how long it took',
    { timeout: 240_000 },
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'strata-npm-start-'));
      let pid: number | undefined;
      try {
        // Two workers whatever the cores here (the default is one per core): the terminal signals them too, and
        // they close the one file together (test/cli/workers-stop.test.ts stops them in more ways, many times).
        const run = await startNpm(dir, { WORKERS: '2' });
        pid = run.npm.pid!;
        // Every process of the group is gone once the group's stdout and stderr are closed (the server holds them too).
        const closed = new Promise<void>((resolve) => run.npm.once('close', () => resolve()));
        const sent = Date.now();
        process.kill(-pid, 'SIGINT');
        await closed;
        const waited = Date.now() - sent;
        assert.ok(!(await pings(run.url)), 'the server no longer answers');
        const lines = run.output.match(/Stopped on SIGINT after (\d+) ms \(2 workers\)/g) ?? [];
        assert.equal(lines.length, 1, `one stop line:\n${run.output}`);
        // The time it gives is measured: no more than the test saw between the signal and the end of the group.
        const taken = Number(/after (\d+) ms/.exec(lines[0]!)![1]);
        assert.ok(taken <= waited, `${taken} ms reported, ${waited} ms seen:\n${run.output}`);
        const data = path.join(dir, 'data');
        assert.ok(existsSync(path.join(data, 'strata.db')));
        assert.deepEqual(
          readdirSync(data).filter((name) => /-(wal|shm)$/.test(name)),
          [],
          `SQLite's -wal and -shm files are gone:\n${run.output}`,
        );
      } finally {
        try {
          if (pid) process.kill(-pid, 'SIGKILL');
        } catch {
          // the group is already gone
        }
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops the server when npm receives ${signal}`, { timeout: 240_000 }, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'strata-npm-start-'));
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      // The admin app is left out: its build is the e2e tests' business, not this one's.
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: packageRoot(dir),
        env: {
          ...process.env,
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: path.join(dir, 'data'),
          ADMIN_APP_ENABLED: 'false',
          LOG_LEVEL: 'info',
          ADMIN_PASSWORD: 'npm-start-signal-test',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so that whatever it leaves behind can be ended by the test.
        detached: true,
      });
      let output = '';
      npm.stdout.on('data', (chunk) => (output += chunk));
      npm.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
      try {
        let up = false;
        for (let i = 0; i < 1800 && !up && npm.exitCode === null; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          up = await pings(url);
        }
        assert.ok(up, `the server started:\n${output}`);
        npm.kill(signal);
        // The timer is cleared: left pending, it would hold this file's process open for its 15 s.
        let timer: NodeJS.Timeout | undefined;
        const gone = await Promise.race([
          exited.then(() => true),
          new Promise((resolve) => (timer = setTimeout(() => resolve(false), 15_000))),
        ]);
        clearTimeout(timer);
        assert.ok(gone, `npm still runs 15 s after ${signal}:\n${output}`);
        // npm is gone; the server must be gone too (it may take a moment to close its pool).
        let stopped = false;
        for (let i = 0; i < 100 && !stopped; i++) {
          stopped = !(await pings(url));
          if (!stopped) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.ok(stopped, `the server still answers after npm received ${signal}:\n${output}`);
        assert.match(output, /Stopped on SIG/, 'one line says the server stopped');
      } finally {
        try {
          process.kill(-npm.pid!, 'SIGKILL');
        } catch {
          // the group is already gone
        }
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
