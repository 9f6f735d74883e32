/**
 * The cache bench's write-heavy mix (bench/cache.ts): every connection repeats four reads of a list and one PATCH of
 * an article that list shows (closed loop: 1 write per 4 reads whatever the speed), so each write drops the list's
 * answer and the next reads find it fresh. Runs autocannon in this thread: its per-request set-up is a function.
 */
import autocannon from 'autocannon';
import type { LoadResult } from './load.js';

export interface MixSettings {
  duration: number;
  connections: number;
  headers: Record<string, string>;
}

/** Reads per write in the mix. */
export const READS_PER_WRITE = 4;

export async function loadMix(base: string, readPath: string, settings: MixSettings): Promise<LoadResult> {
  let n = 0;
  const read = { method: 'GET' as const, path: readPath };
  const result = await autocannon({
    url: base,
    connections: settings.connections,
    duration: settings.duration,
    headers: settings.headers,
    timeout: 30,
    requests: [
      ...Array.from({ length: READS_PER_WRITE }, () => read),
      {
        method: 'PATCH',
        path: '/items/articles/1',
        headers: { 'content-type': 'application/json' },
        // Another value each time, on one of the 25 articles the list shows.
        setupRequest: (request) => {
          n++;
          return { ...request, path: `/items/articles/${(n % 25) + 1}`, body: JSON.stringify({ views: n }) };
        },
      },
    ],
  });
  return {
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    sent: result.requests.sent,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
