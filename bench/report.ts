/**
 * The bench's results: one record per scenario, printed as a console table and written as JSON to
 * bench/results/<db>-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AssetsResult } from './assets.js';
import type { LoadResult } from './load.js';

export interface SideResult {
  /** Status of the first probe (what every request of the run is expected to answer). */
  status: number;
  load: LoadResult | null;
  /** Highest RSS of that server process during the load, MiB. */
  peakRssMb: number | null;
  /** CPU time of that server process per answered request during the load, ms (Node's side only: not a database server's). */
  cpuMsPerRequest?: number | null;
}

export interface StrataResult extends SideResult {
  /** Error code and message when Strata did not answer 2xx. */
  error: string | null;
  /**
   * SQL statements per request under load: every statement Strata ran during the run (reads, and the few that
   * refresh its caches of users and settings) divided by the requests sent.
   */
  statementsPerRequest: number | null;
  /** The read engine's statements per request over a fixed number of sequential requests (exact; 1 = one per read). */
  readStatementsPerRequest: number;
  /** Non-2xx answers among the sequential requests before the load (they make the count above meaningless). */
  probeErrors: number;
}

export interface CeilingResult extends SideResult {
  /** The ceiling's body is byte for byte Strata's. */
  sameBody: boolean;
}

export interface ScenarioResult {
  id: string;
  name: string;
  path: string;
  strata: StrataResult;
  /** Null when Strata ran no statement to replay (a non-2xx answer). */
  ceiling: CeilingResult | null;
  /** Strata req/s ÷ ceiling req/s; null when either answered non-2xx under load. */
  ratio: number | null;
  /**
   * Ceiling CPU ms per request ÷ Strata's: the same share measured by what each process spent rather than by what it
   * got, so other work on the machine moves it less (on SQLite it includes the database's work, which runs in the
   * process; on servers only Node's side).
   */
  cpuRatio?: number | null;
  /** The statements Strata ran for one request of this scenario (what the ceiling replays). */
  statements: { sql: string; params: unknown[] }[];
}

export interface BenchReport {
  database: string;
  startedAt: string;
  commit: string | null;
  node: string;
  cpus: number;
  /** The machine's 1-minute load average before the bench started: other work skews every number. */
  loadAverageBefore: number;
  settings: { durationSeconds: number; warmupSeconds?: number; connections: number };
  dataset: { rows: Record<string, number>; seconds: number };
  /** Strata's whole-life peak RSS (MiB), from the kernel's high-water mark. */
  strataMaxRssMb: number | null;
  scenarios: ScenarioResult[];
  /** The assets scenario (bench/assets.ts), when it ran. */
  assets?: AssetsResult;
}

export function printReport(report: BenchReport): void {
  const { settings, dataset } = report;
  const rows = Object.entries(dataset.rows)
    .map(([table, n]) => `${table} ${n.toLocaleString('en-US')}`)
    .join(', ');
  console.log(
    `\nStrata on ${report.database}: ${settings.durationSeconds} s × ${settings.connections} connections per scenario; ${rows}`,
  );
  console.table(
    report.scenarios.map((s) => ({
      scenario: `(${s.id}) ${s.name}`,
      'req/s': rate(s.strata.load?.reqPerSec),
      'p50 ms': s.strata.load?.p50Ms ?? '–',
      'p99 ms': s.strata.load?.p99Ms ?? '–',
      'non-2xx': s.strata.load ? s.strata.load.non2xx + s.strata.load.errors : '–',
      'stmts/req': s.strata.readStatementsPerRequest.toFixed(2),
      'peak RSS MB': round(s.strata.peakRssMb),
      'ceiling req/s': rate(s.ceiling?.load?.reqPerSec),
      ratio: s.ratio === null ? '–' : s.ratio.toFixed(2),
      'CPU ratio': s.cpuRatio === null || s.cpuRatio === undefined ? '–' : s.cpuRatio.toFixed(2),
    })),
  );
  for (const s of report.scenarios) {
    if (s.strata.status < 200 || s.strata.status > 299)
      console.log(`(${s.id}) Strata answered ${s.strata.status}: ${s.strata.error}; no ceiling.`);
    else if (s.strata.load && s.strata.load.non2xx + s.strata.load.errors > 0) {
      console.log(
        `(${s.id}) ${s.strata.load.non2xx} non-2xx answers and ${s.strata.load.errors} connection errors under load.`,
      );
    }
    if (s.strata.probeErrors > 0)
      console.log(`(${s.id}) ${s.strata.probeErrors} of the sequential requests before the load answered non-2xx.`);
    if (s.ceiling && !s.ceiling.sameBody)
      console.log(`(${s.id}) the ceiling's body differs from Strata's (status ${s.ceiling.status}).`);
    if (s.ceiling?.load && s.ceiling.load.non2xx + s.ceiling.load.errors > 0) {
      console.log(
        `(${s.id}) ceiling: ${s.ceiling.load.non2xx} non-2xx answers and ${s.ceiling.load.errors} connection errors under load.`,
      );
    }
  }
  const busy = report.loadAverageBefore >= 0.5 ? ' — other work was running: expect noise' : '';
  console.log(
    `Load average (1 min) before the bench: ${report.loadAverageBefore.toFixed(2)} on ${report.cpus} CPUs${busy}.`,
  );
}

/** Writes the report as JSON; returns the file's path. */
export function writeReport(report: BenchReport, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const file = path.join(dir, `${report.database}-${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** Whole requests per second, with a decimal below 10 (a slow scenario should not read as 1 or 0). */
function rate(value: number | null | undefined): number | string {
  if (value === null || value === undefined) return '–';
  return value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
}

function round(value: number | null | undefined): number | string {
  return value === null || value === undefined ? '–' : Math.round(value);
}
