/**
 * The node arguments that run the `strata` CLI: the one-file bundle `npm test` builds (STRATA_TEST_CLI: it starts in
 * a third of the time), or src/cli/index.ts through tsx when a test file is run directly.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// tsx is resolved to a full path here: some tests run the command in a temporary working directory.
export const STRATA_CLI: string[] = process.env.STRATA_TEST_CLI
  ? [process.env.STRATA_TEST_CLI]
  : ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'src/cli/index.ts')];
