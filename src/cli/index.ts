#!/usr/bin/env node
/**
 * The `strata` command: `bootstrap` (install or migrate the database), `start` (bootstrap if needed, then serve),
 * `types`, and the data commands (schema, import, export, users, roles: data-commands.ts).
 * Settings come from the environment and `.env`; a bad one stops here with one line naming it.
 * The commands themselves are run-cli.ts; this file gives them the process's streams and signals and exits with
 * their code.
 */
import { processStopSignals } from '../workers/stop-signals.js';
import { runCli } from './run-cli.js';

const code = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  signals: processStopSignals(),
  forks: true,
});
// Exit once both streams have taken what was written to them (a pipe may not have yet, on some systems).
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
