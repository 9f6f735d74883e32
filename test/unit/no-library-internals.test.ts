/**
 * A sealed database boundary: src/ reaches its libraries (knex, tarn, the drivers) through their public APIs only.
 * Private fields (knex's `__knex__disposed`, tarn's `free`/`used`/`pendingAcquires` lists, a driver's `_ending`) change
 * without notice between patch releases, and patching a library's methods (knex's `acquireConnection`) changes what
 * every other caller of it gets.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

const FORBIDDEN: [RegExp, string][] = [
  [/__knex/, "knex's private connection marks (__knex__disposed, __knexUid)"],
  [/\.pool\??\.(free|used)\b|\bpool\??\.(free|used)\b/, "the pool's private free/used lists"],
  [/\b(pendingAcquires|pendingCreates|pendingDestroys|pendingValidations)\b/, "tarn's private pending lists"],
  [/\bnumPending(Validations|Acquires|Creates)\b/, "tarn's pool state, read to bypass its acquire"],
  [/\b(acquireConnection|releaseConnection|acquireRawConnection)\s*=(?!=)/, "knex's client methods patched"],
  [/\bpool\??\.destroyed\b/, "tarn's `destroyed` flag"],
  // A property of another object whose name starts with an underscore: a library's private field (_ending,
  // _connected, _fatalError, _queryable, ...). Directus's own `_and`/`_or`/`_eq`... filter keys are ours.
  [
    /(?<![\w'"`])[A-Za-z_$][\w$]*\??\._(?!(and|or|not|eq|neq|in|nin|lt|lte|gt|gte|null|nnull|contains|ncontains|icontains|starts_with|ends_with|between|nbetween|empty|nempty|some|none|intersects|regex|func|sum|avg|count|min|max)\b)[A-Za-z]\w*/,
    'an underscore-prefixed (private) field of a library object',
  ],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** The code of a line: string literals (SQL text names catalog functions like information_schema._pg_*) blanked. */
function code(line: string): string {
  return line.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
}

describe('no private library internals in src/', () => {
  it('reaches knex, tarn and the drivers through their public APIs only', () => {
    const files = sourceFiles(SRC);
    assert.ok(files.some((f) => f.endsWith(path.join('db', 'connection.ts'))) && files.length > 50, 'finds sources');
    const offences: string[] = [];
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split('\n');
      let inTemplate = false;
      lines.forEach((line, i) => {
        // Multi-line template literals (SQL) are text, not code.
        const ticks = (line.match(/(?<!\\)`/g) ?? []).length;
        const wasTemplate = inTemplate;
        if (ticks % 2 === 1) inTemplate = !inTemplate;
        if (wasTemplate && ticks === 0) return;
        const text = code(line);
        if (/^\s*(\*|\/\/|\/\*)/.test(text)) return;
        for (const [pattern, what] of FORBIDDEN)
          if (pattern.test(text)) offences.push(`src/${path.relative(SRC, file)}:${i + 1} ${what}: ${line.trim()}`);
      });
    }
    assert.deepEqual(offences, []);
  });

  it('flags what it is meant to flag', () => {
    const samples = [
      'connection.__knex__disposed ??= error;',
      'const free = pool.free.length;',
      'for (const p of pool.pendingAcquires) p.abort();',
      'pool.numPendingValidations() > 0',
      'client.acquireConnection = () => acquire();',
      'if (client._ending) return;',
      'return conn._connected;',
    ];
    for (const sample of samples)
      assert.ok(
        FORBIDDEN.some(([pattern]) => pattern.test(code(sample))),
        sample,
      );
    for (const fine of ['fields._and = x;', 'await client.acquireConnection();', "sql('information_schema._pg_x')"])
      assert.ok(!FORBIDDEN.some(([pattern]) => pattern.test(code(fine))), fine);
  });
});
