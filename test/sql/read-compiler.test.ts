/**
 * SQL snapshots per dialect: the exact statement and parameters the compiler emits for a few plans, stored one file
 * per case and dialect (test/sql/snapshots/<case>.<dialect>.sql, laid out on lines, with <case>.<dialect>.params.json
 * beside it), then run on every database this machine tests: each dialect's statement, over the same rows, must
 * answer the case's expected wire JSON (<case>.result.json). A change here is a change in what every database runs:
 * review the new SQL before updating the expectations (`UPDATE_SNAPSHOTS=1 npm test -- test/sql/read-compiler`
 * rewrites the files; read their git diff).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { DbClient } from '../../src/config/config.js';
import { Database } from '../../src/db/connection.js';
import { CASES, compileCase, type SqlCase } from '../helpers/sql-cases.js';
import { sqlLayout } from '../helpers/sql-layout.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SNAPSHOTS = path.join(HERE, 'snapshots');
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const DIALECT_OF: Record<DbClient, string> = { sqlite3: 'sqlite', pg: 'postgres', mysql: 'mysql' };

function caseFile(c: SqlCase, suffix: string): string {
  const slug = c.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 70);
  return path.join(SNAPSHOTS, `${slug}.${suffix}`);
}

function sqlFileText(c: SqlCase, sql: string): string {
  return `-- ${c.name}\n${sqlLayout(sql)}\n`;
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe('read compiler SQL snapshots', () => {
  for (const c of CASES) {
    for (const dialect of ['postgres', 'mysql', 'sqlite']) {
      it(`${c.name} (${dialect})`, () => {
        const compiled = compileCase(c, dialect);
        const [sqlFile, paramsFile] = [caseFile(c, `${dialect}.sql`), caseFile(c, `${dialect}.params.json`)];
        if (UPDATE) {
          write(sqlFile, sqlFileText(c, compiled.sql));
          write(paramsFile, `${JSON.stringify(compiled.params, null, 2)}\n`);
        }
        assert.ok(
          existsSync(sqlFile),
          `no snapshot ${path.basename(sqlFile)} (run with UPDATE_SNAPSHOTS=1 and review the diff)`,
        );
        assert.equal(sqlFileText(c, compiled.sql), readFileSync(sqlFile, 'utf8'));
        assert.deepEqual(compiled.params, JSON.parse(readFileSync(paramsFile, 'utf8')));
      });
    }
  }
});

/** The answer row of a read: its JSON `data` parsed, counts as numbers. */
function answer(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key,
      typeof value === 'string' && key === 'data' ? JSON.parse(value) : value === null ? null : Number(value),
    ]),
  );
}

for (const client of testClients()) {
  const dialect = DIALECT_OF[client];
  describe(`SQL snapshots run on ${clientLabel(client)}`, () => {
    let testDb: TestDb;
    let db: Database;
    before(async () => {
      testDb = await createTestDatabase(client);
      db = new Database(testDb.config);
      const seed = readFileSync(path.join(HERE, 'small-schema', `${dialect}.sql`), 'utf8');
      for (const statement of seed
        .split(/;\s*$/m)
        .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
        .filter(Boolean))
        await db.query(statement);
    });
    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    for (const c of CASES) {
      it(`${c.name}: the stored statement answers the expected data`, async () => {
        const sql = readFileSync(caseFile(c, `${dialect}.sql`), 'utf8');
        const params = JSON.parse(readFileSync(caseFile(c, `${dialect}.params.json`), 'utf8')) as unknown[];
        const rows = await db.query(sql, params);
        assert.equal(rows.length, 1);
        const resultFile = caseFile(c, 'result.json');
        const got = answer(rows[0]!);
        if (UPDATE && !existsSync(resultFile)) write(resultFile, `${JSON.stringify(got, null, 2)}\n`);
        assert.deepEqual(got, JSON.parse(readFileSync(resultFile, 'utf8')));
      });
    }
  });
}
