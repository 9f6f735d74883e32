// `npm test`: every test this machine can run, with Node's test runner. SQLite always; PostgreSQL, MariaDB/MySQL
// and Redis parts when TEST_PG_URL, TEST_MYSQL_URL and TEST_REDIS_URL are set (.ci/run sets them).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureNative } from './build-native.mjs';
import { ensureStudio } from './studio-build.mjs';
import { buildTestJs } from './test-build.mjs';
import { groupFiles } from './test-groups.mjs';
import { estimator, longestFirst, reportTimes } from './test-order.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

// Arguments: parts of test file paths to run only those; --save-times keeps the run's per-file times in
// test/times.json (scripts/test-order.mjs).
const saveTimes = process.argv.includes('--save-times');
const filter = process.argv.slice(2).filter((arg) => arg !== '--save-times');
const files = testFiles(path.join(root, 'test'))
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
  .sort();

for (const name of ['TEST_PG_URL', 'TEST_MYSQL_URL', 'TEST_REDIS_URL']) {
  process.stdout.write(`${name}: ${process.env[name] ? 'set' : 'not set (skipping that part)'}\n`);
}

// SQLite's statement timeout is a small C library, built at install; again here when its source changed.
ensureNative(root);

// The admin app's tests serve the built app: build it first when its sources changed.
if (
  files.some((file) => file.includes(`${path.sep}e2e${path.sep}`) || file.includes('admin-app')) &&
  ensureStudio(root) !== 0
)
  process.exit(1);

// The CLI and cluster tests spawn `strata` dozens of times: one bundled file (esbuild, which tsx and vite bring)
// starts in a third of the time tsx needs to load src/ module by module (test/helpers/strata-cli.ts). Without
// esbuild they spawn it through tsx.
async function bundleCli() {
  if (!files.some((file) => /[\\/](cli|cluster)[\\/]/.test(file))) return '';
  try {
    const { build } = await import('esbuild');
    const outfile = path.join(root, 'build', 'test-cli.mjs');
    await build({
      entryPoints: [path.join(root, 'src', 'cli', 'index.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile,
      logLevel: 'warning',
    });
    return outfile;
  } catch {
    return '';
  }
}

// Each test file bundled once for the run (scripts/test-build.mjs): every test process then loads a few files of plain
// JavaScript (source-mapped to the .ts lines) instead of loading tsx. Through tsx when esbuild is missing.
const templateRun = path.join(root, 'test', 'helpers', 'template-run.ts');
const [cliBundle, js] = await Promise.all([bundleCli(), buildTestJs(root, [...files, templateRun])]);
const loader = js ? ['--enable-source-maps'] : ['--import', 'tsx'];
const runnable = (file) => (js ? path.join(js, path.relative(root, file)).replace(/\.ts$/, '.js') : file);

// Bootstrapped template databases, built once for the run and copied by every test app (test/helpers/test-templates.ts).
// They are built while the first files run: the build mostly waits on the databases (MariaDB's DDL), and files
// that need no template (unit, SQL, CLI) use that time; a test app waits for the file that lists them.
const run = randomBytes(5).toString('hex');
const helper = (command, env, stdio) =>
  spawn(process.execPath, [...loader, runnable(templateRun), command, run], { cwd: root, env, stdio });
const exited = (child) => new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
const templatesFile = path.join(root, 'build', `test-templates-${run}.json`);
const building = helper('build', process.env, ['ignore', 'pipe', 'inherit']);
let built = '';
building.stdout.on('data', (chunk) => (built += chunk));
const templates = exited(building).then((code) => {
  const list = code === 0 ? built : '';
  if (!list) process.stdout.write('Template databases could not be built: every test app migrates its own database\n');
  // Renamed into place whole: a test app that sees the file reads all of it.
  writeFileSync(`${templatesFile}.part`, list || '[]');
  renameSync(`${templatesFile}.part`, templatesFile);
  return list;
});

// Test files run in processes of their own; several at once, since most of their time is spent waiting on a
// database or a socket. Each uses databases, ports, Redis servers and Redis namespaces of its own.
const concurrency = process.env.TEST_CONCURRENCY || '4';
// Several bundled files per process (scripts/test-groups.mjs) unless TEST_GROUPS=0 or the files run through tsx.
const estimate = estimator(root);
const processes =
  js && process.env.TEST_GROUPS !== '0'
    ? groupFiles(js, files, estimate, Number(concurrency), runnable)
    : longestFirst(root, files).map(runnable);
const timesLog = path.join(root, 'build', `test-times-${run}.jsonl`);
const env = {
  ...process.env,
  NODE_ENV: 'test',
  STRATA_TEST_TIMES_LOG: timesLog,
  // Test databases are named by the run, so that those a killed test process left are dropped after it.
  STRATA_TEST_RUN: run,
  STRATA_TEST_TEMPLATES_FILE: templatesFile,
  ...(cliBundle ? { STRATA_TEST_CLI: cliBundle } : {}),
};
// Ctrl-C stops the tests (they get the signal too) but not this script, which still drops the templates.
process.on('SIGINT', () => {});
const started = Date.now();
const status = await exited(
  spawn(
    process.execPath,
    [
      ...loader,
      '--import',
      path.join(root, 'scripts', 'test-times.mjs'),
      path.join(root, 'scripts', 'test-runner.mjs'),
      concurrency,
      ...processes,
    ],
    { stdio: 'inherit', cwd: root, env },
  ),
);
const wall = (Date.now() - started) / 1000;
const list = await templates;
rmSync(templatesFile, { force: true });
await exited(helper('drop', { ...env, STRATA_TEST_TEMPLATES: list || '[]' }, ['ignore', 'ignore', 'inherit']));
reportTimes(root, timesLog, wall, { save: saveTimes && filter.length === 0 && status === 0 });
process.exit(status);
