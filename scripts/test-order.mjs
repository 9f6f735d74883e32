// The order `npm test` starts its files in, and the per-file times it prints after a run. With a few workers and
// files of very different lengths, the run ends when its last long file does: starting the longest files first
// keeps one of them from starting at the end. Lengths come from the last run on this machine
// (build/test-times.json, written by reportTimes); a file never measured is estimated by its folder.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const TIMES = ['build', 'test-times.json'];
/** Seconds, for files without a measurement: the folders whose files spawn processes or browsers run longest. */
const FOLDER_ESTIMATE = { cli: 60, e2e: 60, cluster: 40, sdk: 40, fuzz: 40, api: 20, graphql: 15, browser: 10, sql: 8 };

function lastTimes(root) {
  const file = path.join(root, ...TIMES);
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/** The files (absolute .ts paths), longest first; ties by name. */
export function longestFirst(root, files) {
  const times = lastTimes(root);
  const estimate = (file) => {
    const relative = path.relative(root, file);
    return times[relative]?.wall ?? FOLDER_ESTIMATE[relative.split(path.sep)[1]] ?? 2;
  };
  return [...files].sort((a, b) => estimate(b) - estimate(a) || a.localeCompare(b));
}

/** Prints the run's totals and slowest files from the times the test processes logged, and keeps them. */
export function reportTimes(root, log, wall) {
  if (!existsSync(log)) return;
  const entries = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  rmSync(log, { force: true });
  const times = lastTimes(root);
  for (const { file, wall: fileWall, cpu } of entries) times[file] = { wall: fileWall, cpu };
  writeFileSync(path.join(root, ...TIMES), `${JSON.stringify(times, null, 1)}\n`);
  const cpu = entries.reduce((sum, entry) => sum + entry.cpu, 0);
  const out = [
    `\nTest files: ${entries.length} in ${wall.toFixed(1)} s; CPU in their processes ${cpu.toFixed(1)} s ` +
      '(not counting the processes they spawn or the databases). Slowest files (wall s, CPU s):',
    ...entries
      .sort((a, b) => b.wall - a.wall)
      .slice(0, 12)
      .map((entry) => `  ${entry.wall.toFixed(1).padStart(6)} ${entry.cpu.toFixed(1).padStart(6)}  ${entry.file}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
