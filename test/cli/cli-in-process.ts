/**
 * Runs `strata <args>` in this process through runCli (src/cli/run-cli.ts), with buffers for its streams: the same
 * exit code, stdout and stderr as the binary, without a node process (and its second of start-up) per command.
 */
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';

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

/** As `spawnSync(strata, args, { cwd, env })`, minus the process: stdin is empty and not a terminal. */
export async function cliInProcess(
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<CliResult> {
  const stdout = buffer();
  const stderr = buffer();
  const status = await runCli({
    argv: args,
    env: options.env,
    cwd: options.cwd,
    stdin: Readable.from([]),
    stdout: stdout.stream,
    stderr: stderr.stream,
  });
  return { status, stdout: stdout.text(), stderr: stderr.text() };
}
