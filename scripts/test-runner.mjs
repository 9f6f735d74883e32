// `node scripts/test-runner.mjs <concurrency> <file>…`: Node's test runner over the files in the order given
// (`node --test` sorts its files by name; scripts/test.mjs gives them longest first so that the longest files do
// not start last), with the spec reporter. Exits 1 when a test fails.
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const [concurrency, ...files] = process.argv.slice(2);
// A file that hangs (a socket that never answers) fails after TEST_FILE_TIMEOUT seconds instead of stalling the run.
const timeout = Number(process.env.TEST_FILE_TIMEOUT || 600) * 1000;
const stream = run({ files, concurrency: Number(concurrency), timeout });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(spec).pipe(process.stdout);
