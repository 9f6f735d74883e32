/**
 * Load on one URL with wrk (Debian's `wrk` package), when it is installed. The workers bench uses it because its
 * load generator shares the machine's cores with what it measures: autocannon is JavaScript and at a few thousand
 * requests a second takes most of a core, which a second worker then has to share; wrk (C, one thread) takes a small
 * part of that. Results in the shape of load.ts's.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import type { LoadResult, LoadSettings } from './load.js';

const run = promisify(execFile);

/** Whether `wrk` is on PATH. */
export function wrkAvailable(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk prints its version and exits 1: it is there when it could be started at all.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export async function wrkLoad(url: string, settings: LoadSettings): Promise<LoadResult> {
  const args = ['-t1', `-c${settings.connections}`, `-d${settings.duration}s`, '--latency', '--timeout', '30s'];
  for (const [name, value] of Object.entries(settings.headers ?? {})) args.push('-H', `${name}: ${value}`);
  const { stdout } = await run('wrk', [...args, url], { maxBuffer: 1 << 20 });
  return parseWrk(stdout);
}

/** wrk's summary: "N requests in Ts", "Requests/sec: R", "Non-2xx or 3xx responses: K", the latency percentiles. */
export function parseWrk(text: string): LoadResult {
  const number = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  const requests = number(/(\d+) requests in/);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    reqPerSec: number(/Requests\/sec:\s+([\d.]+)/),
    p50Ms: latencyMs(/\s50%\s+([\d.]+)(us|ms|s)/.exec(text)),
    p99Ms: latencyMs(/\s99%\s+([\d.]+)(us|ms|s)/.exec(text)),
    requests,
    sent: requests,
    non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
    errors: errors ? errors.slice(1).reduce((t, n) => t + Number(n), 0) : 0,
  };
}

function latencyMs(match: RegExpExecArray | null): number {
  if (!match) return 0;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}
