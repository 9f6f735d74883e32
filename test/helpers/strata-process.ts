/**
 * A real Strata process (`strata start` through tsx) on a free loopback port, for tests that need several
 * instances, signals or a process to kill. Output is kept for failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './child-server.js';
import { STRATA_CLI } from './strata-cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = [...STRATA_CLI, 'start'];

export { freePort };

export class StrataProcess {
  output = '';
  private exit: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk) => (this.output += chunk));
    child.stderr?.on('data', (chunk) => (this.output += chunk));
    this.exit = once(child, 'exit').then(([code]) => code as number | null);
  }

  /** Starts and waits until `/server/ping` answers (or fails with the process output). */
  static async start(env: Record<string, string>, timeoutMs = 60_000): Promise<StrataProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, CLI, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        // One process unless a test asks for workers: tests that signal or kill `pid` mean the server itself.
        WORKERS: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const instance = new StrataProcess(child, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`Strata exited with ${child.exitCode}:\n${instance.output}`);
      try {
        const response = await fetch(`${instance.url}/server/ping`, { headers: { 'x-forwarded-for': '192.0.2.250' } });
        if (response.ok) return instance;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`Strata did not start within ${timeoutMs} ms:\n${instance.output}`);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Sends a signal and waits for the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exit;
  }
}
