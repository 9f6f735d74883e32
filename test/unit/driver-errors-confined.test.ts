/**
 * Driver errors are read in one place: each dialect's error-translation.ts (and dialects/shared-errors.ts for what
 * every driver shares). Outside src/db/dialects nothing reads a driver's codes, numbers or SQLSTATEs: a driver's
 * error leaves src/db as a DatabaseError, and the front ends answer with toServiceError. Also: no file but the
 * dialect registry imports every dialect (the classifier is injected, not a file that knows them all).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

const FORBIDDEN: [RegExp, string][] = [
  [/\berrno\b/, 'reads errno (MySQL error numbers)'],
  [/\bsqlState\b/i, 'reads sqlState'],
  [/\bSQLITE_[A-Z]/, 'names a SQLite result code'],
  [/\bER_[A-Z]/, 'names a MySQL error code'],
  [/['"`][0-9][0-9A-Z]{4}['"`]/, 'names a SQLSTATE'],
  [/\bPROTOCOL_[A-Z_]+\b/, 'names a mysql2 protocol error'],
  [/\bE(CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|HOSTUNREACH|PIPE|AI_AGAIN)\b/, 'names a network error code'],
  [/KnexTimeoutError/, "names knex's pool timeout"],
  [/\.code\s*[!=]==?\s*['"`](?:[0-9]|SQLITE_|ER_|PROTOCOL_|ECONN)/, 'compares an error code with a driver code'],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

const files = sourceFiles(SRC).map((file) => path.relative(SRC, file).split(path.sep).join('/'));

describe('driver errors are read only by the dialects', () => {
  it('no file outside src/db/dialects reads a driver error code', () => {
    assert.ok(files.includes('db/failure-kind.ts') && files.length > 50, 'the walk finds the sources');
    const offences: string[] = [];
    for (const file of files) {
      if (file.startsWith('db/dialects/')) continue;
      const lines = readFileSync(path.join(SRC, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        for (const [pattern, what] of FORBIDDEN)
          if (pattern.test(line)) offences.push(`src/${file}:${index + 1} ${what}: ${line.trim()}`);
      });
    }
    assert.deepEqual(offences, []);
  });

  it('the patterns catch what they are for', () => {
    const caught = (line: string) => FORBIDDEN.some(([pattern]) => pattern.test(line));
    assert.ok(caught("if (error.code === 'SQLITE_CONSTRAINT_UNIQUE')"));
    assert.ok(caught("if (error.code === '23505')"));
    assert.ok(caught('if (error.errno === 1062)'));
    assert.ok(caught("if (e.code === 'ER_DUP_ENTRY')"));
    assert.ok(caught("if (e.code === 'ECONNREFUSED')"));
    assert.ok(!caught("if (error.code === 'TOKEN_EXPIRED')"));
  });

  it('only the dialect registry imports every dialect', () => {
    const importers = files.filter((file) => {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      const imported = [...text.matchAll(/from\s+['"](\.[^'"]+)['"]/g)].map((m) =>
        path.posix.join(path.posix.dirname(file), m[1]!),
      );
      return ['mysql', 'postgres', 'sqlite'].every((dialect) =>
        imported.some((target) => target.startsWith(`db/dialects/${dialect}/`)),
      );
    });
    assert.deepEqual(importers, ['db/dialects/index.ts']);
  });
});
