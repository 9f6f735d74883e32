// `npm test`: every test this machine can run, with Node's test runner. SQLite always; PostgreSQL, MariaDB/MySQL
// and Redis parts when TEST_PG_URL, TEST_MYSQL_URL and TEST_REDIS_URL are set (.ci/run sets them).
import { spawnSync } from 'node:child_process';
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
const files = testFiles(path.join(root, 'test'))
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
  .sort();

for (const name of ['TEST_PG_URL', 'TEST_MYSQL_URL', 'TEST_REDIS_URL']) {
  process.stdout.write(`${name}: ${process.env[name] ? 'set' : 'not set (skipping that part)'}\n`);
}

// SQLite's statement timeout is a small C library, built at install; again here when its source changed.
ensureNative(root);

// The admin app's tests serve the built app: build it first when its sources changed.
if (files.some((file) => file.includes(`${path.sep}e2e${path.sep}`) || file.includes('admin-app')) && ensureStudio(root) !== 0) process.exit(1);

const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, NODE_ENV: 'test' },
});
process.exit(result.status ?? 1);
