// The order `npm test` starts its files in, and the per-file times it prints after a run. With a few workers and
// files of very different lengths, the run ends when its last long file does: starting the longest files first
// keeps one of them from starting at the end. Lengths come from the last run on this machine
// (build/test-times.json, written by reportTimes), else from test/times.json (a full run's, committed, so that a fresh
// clone packs its groups as well as a checkout that has run before); a file measured by neither is estimated by its
// folder. `npm test -- --save-times` writes the run's times to test/times.json.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const TIMES = ['build', 'test-times.json'];
const SEED = ['test', 'times.json'];
/** Seconds, for files without a measurement: the folders whose files spawn processes or browsers run longest. */
const FOLDER_ESTIMATE = { cli: 60, e2e: 60, cluster: 40, sdk: 40, fuzz: 40, api: 20, graphql: 15, browser: 10, sql: 8 };

function readJson(file) {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function lastTimes(root) {
  return readJson(path.join(root, ...TIMES));
}

/** Expected seconds of a test file (absolute .ts path) from the last run, the committed times, or its folder. */
export function estimator(root) {
  const times = lastTimes(root);
  const seed = readJson(path.join(root, ...SEED));
  return (file) => {
    const relative = path.relative(root, file).split(path.sep).join('/');
    return times[relative]?.wall ?? seed[relative] ?? FOLDER_ESTIMATE[relative.split('/')[1]] ?? 2;
  };
}

/** The files (absolute .ts paths), longest first; ties by name. */
export function longestFirst(root, files) {
  const estimate = estimator(root);
  return [...files].sort((a, b) => estimate(b) - estimate(a) || a.localeCompare(b));
}

/**
 * Prints the run's totals and slowest files from the times logged (per test process by scripts/test-times.mjs, per
 * file by scripts/test-runner.mjs from its tests' durations), and keeps the files' times for the next run.
 */
export function reportTimes(root, log, wall, { save = false } = {}) {
  if (!existsSync(log)) return;
  const entries = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  rmSync(log, { force: true });
  const files = entries.filter((entry) => entry.file);
  const processes = entries.filter((entry) => entry.process);
  const times = lastTimes(root);
  for (const { file, wall: fileWall } of files) times[file] = { wall: fileWall };
  writeFileSync(path.join(root, ...TIMES), `${JSON.stringify(times, null, 1)}\n`);
  if (save) {
    const seed = Object.fromEntries(
      files
        .map(({ file, wall: fileWall }) => [file, Math.round(fileWall * 10) / 10])
        .sort(([a], [b]) => a.localeCompare(b)),
    );
    writeFileSync(path.join(root, ...SEED), `${JSON.stringify(seed, null, 2)}\n`);
  }
  const cpu = processes.reduce((sum, entry) => sum + entry.cpu, 0);
  const line = (entry, name) =>
    `  ${entry.wall.toFixed(1).padStart(6)} ${entry.cpu === undefined ? '     ' : entry.cpu.toFixed(1).padStart(6)}  ${name}`;
  const out = [
    `\nTest files: ${files.length} in ${processes.length} processes, ${wall.toFixed(1)} s; CPU in those processes ` +
      `${cpu.toFixed(1)} s (not counting the processes they spawn or the databases).`,
    'Slowest processes (wall s, CPU s):',
    ...processes
      .sort((a, b) => b.wall - a.wall)
      .slice(0, 6)
      .map((entry) => line(entry, entry.process)),
    'Slowest files (s of their tests):',
    ...files
      .sort((a, b) => b.wall - a.wall)
      .slice(0, 12)
      .map((entry) => line(entry, entry.file)),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
