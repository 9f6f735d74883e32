// `node scripts/test-runner.mjs <concurrency> <file>…`: Node's test runner over the files in the order given
// (`node --test` sorts its files by name; scripts/test.mjs gives them longest first so that the longest files do
// not start last), with the spec reporter. Exits 1 when a test fails. A file may be a group of test files
// (scripts/test-groups.mjs); each test file's time (the sum of its top-level tests) goes to STRATA_TEST_TIMES_LOG.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { sourceName } from './test-source-name.mjs';

const [concurrency, ...files] = process.argv.slice(2);
// A process that hangs (a socket that never answers) fails after TEST_FILE_TIMEOUT seconds instead of stalling the run.
const timeout = Number(process.env.TEST_FILE_TIMEOUT || 300) * 1000;
const stream = run({ files, concurrency: Number(concurrency), timeout });
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const perFile = new Map();
const count = (test) => {
  if (test.nesting !== 0 || !test.file) return;
  const name = sourceName(root, test.file.startsWith('file:') ? fileURLToPath(test.file) : test.file);
  perFile.set(name, (perFile.get(name) ?? 0) + (test.details?.duration_ms ?? 0) / 1000);
};
stream.on('test:pass', count);
stream.on('test:fail', (test) => {
  process.exitCode = 1;
  count(test);
});
stream.on('end', () => {
  const log = process.env.STRATA_TEST_TIMES_LOG;
  if (!log) return;
  const lines = [...perFile].map(([file, wall]) => JSON.stringify({ file, wall }));
  if (lines.length > 0) appendFileSync(log, `${lines.join('\n')}\n`);
});
stream.compose(spec).pipe(process.stdout);
