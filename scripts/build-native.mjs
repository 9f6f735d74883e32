// Compiles the SQLite statement-timeout extension (src/db/dialects/sqlite/native/) with the system C compiler,
// against the SQLite headers that better-sqlite3 ships. Run by `npm ci`/`npm install` (postinstall), and by
// `npm start` and `npm test` when the library is missing or older than its source. Without a compiler Strata still
// runs: this prints why, and DB_STATEMENT_TIMEOUT does not apply on SQLite (the server says so at start too).
// Where the library goes is also written in src/db/dialects/sqlite/statement-timeout.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SUFFIX = process.platform === 'win32' ? '.dll' : process.platform === 'darwin' ? '.dylib' : '.so';

export function nativeLibrary(root) {
  return path.join(root, 'build', 'native', `statement-timeout${SUFFIX}`);
}

/** The folder of sqlite3ext.h inside better-sqlite3, or null (the compiler's own include path is tried then). */
function sqliteHeaders(root) {
  try {
    const pkg = createRequire(path.join(root, 'package.json')).resolve('better-sqlite3/package.json');
    const dir = path.join(path.dirname(pkg), 'deps', 'sqlite3');
    return existsSync(path.join(dir, 'sqlite3ext.h')) ? dir : null;
  } catch {
    return null;
  }
}

/** Builds the library when it is missing or outdated. Returns 0 always: a missing compiler only warns. */
export function ensureNative(root, { quiet = false } = {}) {
  const source = path.join(root, 'src', 'db', 'dialects', 'sqlite', 'native', 'statement-timeout.c');
  const output = nativeLibrary(root);
  const headers = sqliteHeaders(root);
  const inputs = [source, ...(headers ? [path.join(headers, 'sqlite3ext.h')] : [])];
  if (!existsSync(source)) return 0;
  if (existsSync(output) && inputs.every((file) => statSync(file).mtimeMs <= statSync(output).mtimeMs)) return 0;

  mkdirSync(path.dirname(output), { recursive: true });
  // Built beside its place and renamed into it: test runs or servers starting together never load half a file.
  const partial = `${output}.${process.pid}.tmp`;
  const compiler = process.env.CC || 'cc';
  const args = [
    '-O2',
    '-fPIC',
    ...(process.platform === 'darwin' ? ['-dynamiclib'] : ['-shared']),
    ...(headers ? ['-I', headers] : []),
    source,
    '-o',
    partial,
    ...(process.platform === 'win32' ? [] : ['-lpthread']),
  ];
  const built = spawnSync(compiler, args, { encoding: 'utf8' });
  if (built.status === 0) {
    renameSync(partial, output);
    if (!quiet) process.stdout.write(`Built the SQLite statement-timeout extension (${path.relative(root, output)})\n`);
    return 0;
  }
  rmSync(partial, { force: true });
  const reason = built.error
    ? `${compiler}: ${built.error.code ?? built.error.message}`
    : (built.stderr || built.stdout).trim().split('\n').slice(-3).join(' | ');
  process.stderr.write(
    `warning: could not compile the SQLite statement-timeout extension (${reason}). Strata runs without it, but ` +
      `DB_STATEMENT_TIMEOUT will not apply on SQLite. Install a C compiler (cc; or set CC), then npm start or npm test build it.\n`,
  );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureNative(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
}
