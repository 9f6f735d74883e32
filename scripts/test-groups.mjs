// Several test files per test process. Starting a process that loads Strata, Fastify, graphql and the database
// drivers costs about 1.9 CPU s before its first test; with some 130 files that was half the CPU the test processes
// spent, on a machine whose two cores the run keeps busy. A group is one generated module that imports its files'
// bundles (build/test-js/, scripts/test-build.mjs): Node's test runner then runs their tests one file after the
// other in one process, and the code they share is loaded once. The groups are filled longest file first so that
// they end about together.
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Returns what the runner starts, longest first: group modules (written to <js>/groups/), or a file's own bundle for
 * a group of one (absolute .js). `files`: the test files (absolute .ts); `estimate(file)`: its expected seconds;
 * `bundled(file)`: its bundle.
 */
export function groupFiles(js, files, estimate, concurrency, bundled) {
  // Exactly two groups per worker, filled longest file first into the group with least time so far: few
  // processes, and every worker runs two of about the same length (measured: 8 processes 146 s, 13 processes
  // 160 s, 5 processes 177 s). A count that is not a multiple of the workers leaves one group to run alone at
  // the end: 9 groups made a run end with its last group alone for 24 s, three workers idle.
  const groups = Array.from({ length: concurrency * 2 }, () => ({ files: [], time: 0 }));
  for (const file of [...files].sort((a, b) => estimate(b) - estimate(a) || a.localeCompare(b))) {
    const smallest = groups.reduce((a, b) => (b.time < a.time ? b : a));
    smallest.files.push(file);
    smallest.time += estimate(file);
  }
  const folder = path.join(js, 'groups');
  mkdirSync(folder, { recursive: true });
  const entries = groups
    .filter((group) => group.files.length > 0)
    .map((group, index) => {
      if (group.files.length === 1) return { file: bundled(group.files[0]), time: group.time };
      const file = path.join(folder, `group-${index + 1}.test.js`);
      // Each file in the order of its name, as it would have run alone.
      const imports = [...group.files]
        .sort()
        .map((member) => `import ${JSON.stringify(relative(folder, bundled(member)))};`);
      writeFileSync(file, `${imports.join('\n')}\n`);
      return { file, time: group.time };
    });
  return entries.sort((a, b) => b.time - a.time).map((entry) => entry.file);
}

function relative(from, to) {
  const link = path.relative(from, to).split(path.sep).join('/');
  return link.startsWith('.') ? link : `./${link}`;
}
