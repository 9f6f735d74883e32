/**
 * DB_STATEMENT_TIMEOUT on SQLite. better-sqlite3 runs statements synchronously and exposes no way to stop one, so a
 * small loadable extension (native/statement-timeout.c, compiled at install by scripts/build-native.mjs) interrupts
 * a statement from a watchdog thread when it runs past the timeout; it then fails with SQLITE_INTERRUPT, which is
 * classified as a timeout like the other databases' cancellations. Without the compiled library (no C compiler at
 * install) Strata runs without the timeout on SQLite and says so at start.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';

const SUFFIX = process.platform === 'win32' ? '.dll' : process.platform === 'darwin' ? '.dylib' : '.so';

/**
 * Where scripts/build-native.mjs puts the library: build/native/ at the package root, found upwards from this file
 * (src/, dist/ and the bench's own build sit at different depths). Where none is found: the place at the root.
 */
export const STATEMENT_TIMEOUT_LIBRARY = findLibrary(`build/native/statement-timeout${SUFFIX}`);

function findLibrary(relative: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  const fallback = path.resolve(dir, '../../../..', relative);
  for (;;) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return fallback;
    dir = parent;
  }
}

/** Why the last connection could not get its timeout (the library failed to load), for the start-up warning. */
let loadFailure: string | null = null;

/** Gives a new connection its statement timeout (ms; 0 = none). Never throws: a connection without it still works. */
export function applyStatementTimeout(connection: BetterSqlite3.Database, timeoutMs: number): void {
  if (timeoutMs <= 0 || !existsSync(STATEMENT_TIMEOUT_LIBRARY)) return;
  try {
    // SQLite finds the entry point from the file name: sqlite3_statementtimeout_init.
    connection.loadExtension(STATEMENT_TIMEOUT_LIBRARY);
    connection.prepare('select strata_statement_timeout(?)').get(timeoutMs);
    loadFailure = null;
  } catch (error) {
    loadFailure = (error as Error).message;
  }
}

/** What keeps the timeout from applying on this machine, as lines for the start-up log (none when it applies). */
export function statementTimeoutWarnings(timeoutMs: number): string[] {
  if (timeoutMs <= 0) return [];
  if (!existsSync(STATEMENT_TIMEOUT_LIBRARY)) {
    return [
      'DB_STATEMENT_TIMEOUT does not apply on SQLite here: the statement-timeout extension is not built (no C compiler ' +
        'at install?). Install one (cc) and run npm start again, or see docs/limits.md.',
    ];
  }
  if (loadFailure)
    return [
      `DB_STATEMENT_TIMEOUT does not apply on SQLite here: the statement-timeout extension did not load (${loadFailure})`,
    ];
  return [];
}
