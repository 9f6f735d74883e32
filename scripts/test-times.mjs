// Preloaded into every test process by `npm test` (scripts/test.mjs): when the process ends it appends its test
// file, wall time and CPU time to STRATA_TEST_TIMES_LOG, from which the runner prints the slowest files and orders
// the next run longest first.
import { appendFileSync } from 'node:fs';
import path from 'node:path';

const log = process.env.STRATA_TEST_TIMES_LOG;
const file = process.argv[1] ?? '';
if (log && /\.test\.(ts|js)$/.test(file)) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    // Named by its source file whether it ran transpiled (build/test-js/…/x.test.js) or through tsx.
    const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
    const compiled = path.join(root, 'build', 'test-js');
    const source = file.startsWith(compiled + path.sep)
      ? path.relative(compiled, file).replace(/\.js$/, '.ts')
      : path.relative(root, file);
    const entry = { file: source, wall: process.uptime(), cpu: (cpu.user + cpu.system) / 1e6 };
    appendFileSync(log, `${JSON.stringify(entry)}\n`);
  });
}
