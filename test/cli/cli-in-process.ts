/**
 * Runs `strata <args>` in this process through runCli (src/cli/run-cli.ts), with buffers for its streams: the same
 * exit code, stdout and stderr as the binary, without a node process (and its second of start-up) per command.
 */
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import type { SignalSource } from '../../src/cli/start-command.js';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

function buffer(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

export interface CliOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** Stop signals for `strata start` (emit 'SIGTERM' on it to stop the server). */
  signals?: SignalSource;
}

/** A command that is still running (`strata start`): its output so far, and its result once it ends. */
export interface RunningCli {
  stdout(): string;
  stderr(): string;
  done: Promise<CliResult>;
}

/** As `spawn(strata, args, { cwd, env })`, minus the process: stdin is empty and not a terminal. */
export function startCliInProcess(args: string[], options: CliOptions): RunningCli {
  const stdout = buffer();
  const stderr = buffer();
  const done = runCli({
    argv: args,
    env: options.env,
    cwd: options.cwd,
    stdin: Readable.from([]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    signals: options.signals,
  }).then((status) => ({ status, stdout: stdout.text(), stderr: stderr.text() }));
  return { stdout: stdout.text, stderr: stderr.text, done };
}

/** As `spawnSync(strata, args, { cwd, env })`, minus the process. */
export function cliInProcess(args: string[], options: CliOptions): Promise<CliResult> {
  return startCliInProcess(args, options).done;
}
