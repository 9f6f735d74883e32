/**
 * Every cache of src/ is the one type (src/cache/cache.ts), named in src/cache/names.ts, and the invalidation table
 * says for each what clears it or why nothing needs to. A cache that a change clears is made through the registry
 * (else the table could not reach it); no lru-cache is used outside src/cache.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CACHE_NAMES, type CacheName } from '../../src/cache/names.js';
import { INVALIDATION, NOT_CLEARED } from '../../src/cache/invalidation.js';
import { CHANNELS } from '../../src/bus/message-bus.js';
import { startTestApp } from '../helpers/test-app.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const sources = sourceFiles(SRC).map((file) => ({
  file: path.relative(SRC, file),
  text: readFileSync(file, 'utf8'),
}));

/** The names caches are made under in src/, by how: through a registry, or on their own. */
function made(pattern: RegExp): Set<string> {
  const names = new Set<string>();
  for (const { file, text } of sources) {
    if (file.startsWith(`cache${path.sep}`)) continue;
    for (const match of text.matchAll(pattern)) names.add(match[1]!);
  }
  return names;
}

const cleared = new Set<CacheName>(Object.values(INVALIDATION).flatMap((entry) => entry.clears));

describe('caches', () => {
  it('lists every cache, and the table covers each (cleared by a change, or why none needs to)', () => {
    for (const name of CACHE_NAMES) {
      const reasons = [cleared.has(name), name in NOT_CLEARED].filter(Boolean).length;
      assert.equal(reasons, 1, `${name}: cleared by a change or in NOT_CLEARED, one of the two`);
    }
    for (const name of [...cleared, ...Object.keys(NOT_CLEARED)])
      assert.ok((CACHE_NAMES as readonly string[]).includes(name), `${name} is in names.ts`);
  });

  it('makes every named cache somewhere in src/, those a change clears through the registry', () => {
    const registered = made(/\.create(?:<[^>]*>)?\(\s*'([a-z-]+)'/g);
    const standalone = made(/new Cache(?:<[^(]*>)?\(\s*'([a-z-]+)'/g);
    for (const name of CACHE_NAMES) assert.ok(registered.has(name) || standalone.has(name), `${name} is made`);
    for (const name of cleared) assert.ok(registered.has(name), `${name} is made through the registry`);
    for (const name of standalone) assert.ok(name in NOT_CLEARED, `${name} (made on its own) needs no clearing`);
  });

  it('sends every change that goes over the bus on a channel the bus knows', () => {
    const channels = new Set<string>(Object.values(CHANNELS));
    for (const [change, entry] of Object.entries(INVALIDATION))
      if (entry.bus) assert.ok(channels.has(change), `${change} is a bus channel`);
  });

  it('registers, in a running Strata, every cache a change clears', async () => {
    const t = await startTestApp('sqlite3', { fixture: false });
    try {
      const registered = new Set(t.context.caches.names());
      for (const name of cleared) assert.ok(registered.has(name), `${name} is registered`);
    } finally {
      await t.close();
    }
  });

  it('uses lru-cache only inside src/cache', () => {
    const outside = sources.filter(
      ({ file, text }) => !file.startsWith(`cache${path.sep}`) && /from 'lru-cache'|new LRUCache\b/.test(text),
    );
    assert.deepEqual(
      outside.map((s) => s.file),
      [],
    );
  });
});
