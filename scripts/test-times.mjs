// Preloaded into every test process by `npm test` (scripts/test.mjs): when the process ends it appends its name
// (its test file, or its group of files: scripts/test-groups.mjs), wall time and CPU time to STRATA_TEST_TIMES_LOG.
// The runner logs each file's own time beside it (scripts/test-runner.mjs); scripts/test-order.mjs reports both.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { sourceName } from './test-source-name.mjs';

const log = process.env.STRATA_TEST_TIMES_LOG;
const file = process.argv[1] ?? '';
if (log && /\.test\.(ts|js)$/.test(file)) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
    const entry = { process: sourceName(root, file), wall: process.uptime(), cpu: (cpu.user + cpu.system) / 1e6 };
    appendFileSync(log, `${JSON.stringify(entry)}\n`);
  });
}
