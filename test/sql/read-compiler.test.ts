/**
 * SQL snapshots per dialect: the exact statement and parameters the compiler emits for a few plans.
 * A change here is a change in what every database runs: review the new SQL before updating the expectations
 * (`UPDATE_SNAPSHOTS=1 node scripts/test.mjs test/sql` rewrites read-compiler.snapshots.json; read its git diff).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CASES, compileCase } from '../helpers/sql-cases.js';

const SNAPSHOTS = fileURLToPath(new URL('./read-compiler.snapshots.json', import.meta.url));
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const EXPECTED: Record<string, { sql: string; params: unknown[] }> = existsSync(SNAPSHOTS) ? JSON.parse(readFileSync(SNAPSHOTS, 'utf8')) : {};

after(() => {
  if (UPDATE) writeFileSync(SNAPSHOTS, `${JSON.stringify(EXPECTED, null, 2)}\n`);
});

describe('read compiler SQL snapshots', () => {
  for (const c of CASES) {
    for (const dialect of ['postgres', 'mysql', 'sqlite']) {
      it(`${c.name} (${dialect})`, () => {
        const key = `${c.name} (${dialect})`;
        if (UPDATE) EXPECTED[key] = compileCase(c, dialect);
        assert.ok(EXPECTED[key], 'no expectation written for this case (run with UPDATE_SNAPSHOTS=1 and review the diff)');
        assert.deepEqual(compileCase(c, dialect), EXPECTED[key]);
      });
    }
  }
});
