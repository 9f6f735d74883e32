/**
 * The lock beside a database file: holders never overlap, and a lock left by a dead process is taken over once stale.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { withFileLock } from '../../src/db/file-lock.js';

describe('file lock', () => {
  const dirs: string[] = [];
  const lockPath = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'strata-lock-'));
    dirs.push(dir);
    return path.join(dir, 'db.sqlite.bootstrap.lock');
  };
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('runs holders one at a time and removes the lock after each, also when work throws', async () => {
    const lock = await lockPath();
    let inside = 0;
    let most = 0;
    const work = async (fail: boolean) => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inside--;
      if (fail) throw new Error('failed inside');
      return 'done';
    };
    const outcomes = await Promise.allSettled(
      [false, true, false, false].map((fail) => withFileLock(lock, () => work(fail))),
    );
    assert.equal(most, 1);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    await assert.rejects(stat(lock), { code: 'ENOENT' });
  });

  it('takes over a lock untouched for longer than a holder leaves it, and waits for a fresh one', async () => {
    const stale = await lockPath();
    await mkdir(stale);
    const old = new Date(Date.now() - 60_000);
    await utimes(stale, old, old);
    assert.equal(await withFileLock(stale, async () => 'taken over', 5_000), 'taken over');

    const fresh = await lockPath();
    await mkdir(fresh);
    await assert.rejects(
      withFileLock(fresh, async () => 'never', 300),
      /Timed out waiting for the lock/,
    );
  });
});
