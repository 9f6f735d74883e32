/**
 * The README's first example runs as written against a fresh start: the block after "Quick start" is taken from
 * README.md, given the admin password and the server's port, run with bash and curl, and must print the answer
 * its last comment shows.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from '../helpers/child-server.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { STRATA_CLI } from '../helpers/strata-cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = STRATA_CLI;
const hasCurl = spawnSync('curl', ['--version']).status === 0;

/** The first sh block that says a test runs it. */
function exampleBlock(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('a test runs this block as written');
  assert.ok(at > 0, 'the README marks its example');
  const start = readme.indexOf('```sh\n', at) + '```sh\n'.length;
  return readme.slice(start, readme.indexOf('```', start));
}

describe('README first example', { skip: hasCurl ? false : 'curl is not installed' }, () => {
  it('runs as written on a fresh database', async () => {
    const block = exampleBlock();
    const expected = /# → (.*)\n?$/.exec(block.trimEnd())?.[1];
    assert.ok(expected, 'the block ends with the answer it prints');
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-readme-'));
    const port = await freePort();
    const password = 'readme-example-password';
    const server = spawn(process.execPath, [...CLI, 'start'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        ADMIN_PASSWORD: password,
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    try {
      let up = false;
      for (let i = 0; i < 900 && !up; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        up =
          (await fetch(`http://127.0.0.1:${port}/server/ping`).then(
            (r) => r.text(),
            () => '',
          )) === 'pong';
      }
      assert.ok(up, 'the server started');
      const script = block
        .replace("PASSWORD='<the printed password>'", `PASSWORD='${password}'`)
        .replace('URL=http://127.0.0.1:8055', `URL=http://127.0.0.1:${port}`);
      assert.notEqual(script, block);
      const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout.trim(), expected);
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
