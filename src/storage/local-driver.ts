/**
 * A folder on this machine. Writes go to a temporary name in the same folder and are renamed into place once
 * complete (rename is atomic on one file system), so a reader never sees half a file and a failed write leaves none.
 * Originals lie in the folder itself; the variants of a file (`<id>__<rest>`) in `.variants/<id>/<rest>`, so that
 * finding them (to delete a file) reads one small folder, not the whole library.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, opendir, readdir, rename, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, StorageDriver, StoredObject } from './storage-driver.js';
import { checkKey } from './storage-keys.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

/** A variant's key: the file's id, then what names the variant. */
const VARIANT = /^(.+?)__(.+)$/;
const VARIANTS = '.variants';

export class LocalDriver implements StorageDriver {
  private ready: Promise<unknown> | null = null;

  constructor(private readonly root: string) {}

  private file(key: string): string {
    const variant = VARIANT.exec(checkKey(key));
    return variant ? path.join(this.root, VARIANTS, variant[1]!, variant[2]!) : path.join(this.root, key);
  }

  localPath(key: string): string {
    return this.file(key);
  }

  async write(key: string, source: Readable): Promise<void> {
    const target = this.file(key);
    this.ready ??= mkdir(this.root, { recursive: true });
    await this.ready;
    if (VARIANT.test(key)) await mkdir(path.dirname(target), { recursive: true });
    // A leading dot keeps a temporary name out of KEY, so it is never listed or served.
    const temporary = path.join(this.root, `.${randomBytes(8).toString('hex')}.partial`);
    const out = createWriteStream(temporary, { flags: 'wx' });
    try {
      await pipeline(source, out);
      await rename(temporary, target);
    } catch (error) {
      // The pipeline fails at the first error, possibly before the file was even opened: the stream still opens and
      // closes it after that, so the unlink waits for the close (else it runs first and an empty file stays).
      if (!out.closed) await once(out, 'close').catch(() => {});
      await unlink(temporary).catch(() => {});
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    const file = this.file(key);
    const stream = createReadStream(file, range ? { start: range.start, end: range.end } : {});
    // Opening is asynchronous: wait for it, so a missing file is null here and not an error mid-answer.
    return new Promise((resolve, reject) => {
      stream.once('ready', () => resolve(stream));
      stream.once('error', (error) => (isMissing(error) ? resolve(null) : reject(error)));
    });
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const info = await stat(this.file(key));
      return info.isFile() ? { size: info.size, modified: info.mtime } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.file(key);
    await unlink(file).catch((error) => {
      if (!isMissing(error)) throw error;
    });
    // The last variant of a file takes its folder with it (rmdir fails on a folder that still holds some).
    if (VARIANT.test(key)) await rmdir(path.dirname(file)).catch(() => {});
  }

  async *list(prefix: string): AsyncIterable<string> {
    const variants = /^(.+)__$/.exec(prefix);
    if (variants) {
      const names = await readdir(path.join(this.root, VARIANTS, checkKey(variants[1]!))).catch((error) => {
        if (isMissing(error)) return [] as string[];
        throw error;
      });
      for (const name of names) if (!name.startsWith('.')) yield `${prefix}${name}`;
      return;
    }
    let dir;
    try {
      dir = await opendir(this.root);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for await (const entry of dir) if (entry.isFile() && entry.name.startsWith(prefix)) yield entry.name;
  }
}
