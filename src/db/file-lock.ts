/**
 * A lock between the processes that share one database file (an embedded database has no named locks): a directory
 * beside the file, since mkdir is atomic — one process creates it, the others wait. The holder touches it every few
 * seconds; one left behind by a process that died is taken over once it has gone untouched for STALE_MS.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rmdir, stat, utimes } from 'node:fs/promises';

const RETRY_MS = 50;
const TOUCH_MS = 2_000;
const STALE_MS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ageOf = (path: string) =>
  stat(path).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );

/** Runs `work` while holding the lock at `path`; waits at most `timeoutMs` for it. */
export async function withFileLock<T>(path: string, work: () => Promise<T>, timeoutMs = 600_000): Promise<T> {
  const started = Date.now();
  while (!(await tryLock(path))) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for the lock ${path}`);
    await sleep(RETRY_MS);
  }
  const touch = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, TOUCH_MS);
  touch.unref();
  try {
    return await work();
  } finally {
    clearInterval(touch);
    await rmdir(path).catch(() => {});
  }
}

async function tryLock(path: string): Promise<boolean> {
  try {
    await mkdir(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((await ageOf(path)) <= STALE_MS) return false;
  // A dead holder's lock: moved aside (atomic, so of two waiters only one moves it), then checked — a waiter that
  // moved a lock taken afresh in between puts it back.
  const aside = `${path}.stale-${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch {
    return false;
  }
  if ((await ageOf(aside)) <= STALE_MS) {
    await rename(aside, path).catch(() => rmdir(aside).catch(() => {}));
    return false;
  }
  await rmdir(aside).catch(() => {});
  return false;
}
