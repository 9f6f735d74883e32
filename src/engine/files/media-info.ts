/**
 * The duration of an audio or video file, in seconds as Directus stores it, read from its container's headers
 * (music-metadata; the file itself where local, else a stream of it). Unreadable or slow: no duration, the file kept.
 */
import type { Readable } from 'node:stream';
import { parseFile, parseStream } from 'music-metadata';

const READ_TIME_MS = 5_000;

export function isMedia(type: string): boolean {
  return type.startsWith('audio/') || type.startsWith('video/');
}

export async function mediaDuration(source: string | Readable, type: string, size: number): Promise<number | null> {
  const options = { duration: false, skipCovers: true, skipPostHeaders: true };
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), READ_TIME_MS)));
  try {
    const read =
      typeof source === 'string' ? parseFile(source, options) : parseStream(source, { mimeType: type, size }, options);
    const meta = await Promise.race([read, slow]);
    const seconds = meta?.format.duration;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds) : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    if (typeof source !== 'string') source.destroy();
  }
}
