// `npm test`: every test this machine can run, with Node's test runner. SQLite always; PostgreSQL, MariaDB/MySQL
// and Redis parts when TEST_PG_URL, TEST_MYSQL_URL and TEST_REDIS_URL are set (.ci/run sets them).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ensureNative } from './build-native.mjs';
import { ensureStudio } from './studio-build.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const filter = process.argv.slice(2);
// The folders whose files run longest (they spawn processes and browsers) start first, so that with several files
// at a time they do not end up running alone at the end.
const LONGEST = ['cli', 'fuzz', 'e2e', 'cluster', 'sdk'].map((dir) => `${path.sep}test${path.sep}${dir}${path.sep}`);
const rank = (file) => {
  const i = LONGEST.findIndex((dir) => file.includes(dir));
  return i === -1 ? LONGEST.length : i;
};
const files = testFiles(path.join(root, 'test'))
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

for (const name of ['TEST_PG_URL', 'TEST_MYSQL_URL', 'TEST_REDIS_URL']) {
  process.stdout.write(`${name}: ${process.env[name] ? 'set' : 'not set (skipping that part)'}\n`);
}

// SQLite's statement timeout is a small C library, built at install; again here when its source changed.
ensureNative(root);

// The admin app's tests serve the built app: build it first when its sources changed.
if (files.some((file) => file.includes(`${path.sep}e2e${path.sep}`) || file.includes('admin-app')) && ensureStudio(root) !== 0) process.exit(1);

// Bootstrapped template databases, built once for the run and copied by every test app (test/helpers/test-templates.ts).
const run = randomBytes(5).toString('hex');
const helper = (command, env) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'helpers', 'template-run.ts'), command, run], { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const built = helper('build', process.env);
const templates = built.status === 0 ? built.stdout : '';
if (!templates) process.stdout.write('Template databases could not be built: every test app migrates its own database\n');

// Test files run in processes of their own; several at once, since most of their time is spent waiting on a
// database or a socket. Each uses databases, ports, Redis servers and Redis namespaces of its own.
const concurrency = process.env.TEST_CONCURRENCY || '4';
const env = { ...process.env, NODE_ENV: 'test', ...(templates ? { STRATA_TEST_TEMPLATES: templates } : {}) };
// Ctrl-C stops the tests (they get the signal too) but not this script, which still drops the templates.
process.on('SIGINT', () => {});
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  cwd: root,
  env,
});
if (templates) helper('drop', env);
process.exit(result.status ?? 1);
