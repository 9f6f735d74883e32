/**
 * One data path to the database: the query builder (knex) stays inside src/db. Everything else runs SQL through
 * `Database.query`/`transaction` or calls a repository of src/db/repositories.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

const FORBIDDEN: [RegExp, string][] = [
  [/from\s+['"]knex['"]|import\(\s*['"]knex['"]\s*\)|require\(\s*['"]knex['"]\s*\)/, "imports 'knex'"],
  [/\.knex\b/, 'uses `.knex`'],
  [/\b(queryBuilder|knexOf)\b/, 'takes the query builder (queryBuilder, knexOf)'],
  [/db\/repositories\/statements\.js/, "runs builder statements (repositories' statements.ts)"],
  [/\bonPooledConnection\b/, 'runs statements on raw pooled connections (a repository does that)'],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|js|mjs|vue)$/.test(entry.name) ? [full] : [];
  });
}

describe('knex stays inside src/db', () => {
  it('no file outside src/db imports knex, reaches Database.knex or takes the query builder', () => {
    const files = sourceFiles(SRC).map((file) => path.relative(SRC, file).split(path.sep).join('/'));
    assert.ok(files.includes('db/connection.ts') && files.length > 50, 'the walk finds the sources');
    const offences: string[] = [];
    for (const file of files) {
      if (file.startsWith('db/')) continue;
      const text = readFileSync(path.join(SRC, file), 'utf8');
      for (const [pattern, what] of FORBIDDEN) if (pattern.test(text)) offences.push(`src/${file} ${what}`);
    }
    assert.deepEqual(offences, []);
  });

  it('Database does not expose the query builder', () => {
    const text = readFileSync(path.join(SRC, 'db', 'connection.ts'), 'utf8');
    assert.match(text, /private readonly knex: Knex;/);
    assert.doesNotMatch(text, /^\s*(public\s+)?readonly knex\b/m);
  });
});
