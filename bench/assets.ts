/**
 * The `assets` scenario of `npm run bench` (BENCH_SCENARIOS=assets runs it alone): a 12-megapixel JPEG (4000×3000,
 * a gradient under noise, made with sharp here) uploaded once through POST /files, then (a) the original through
 * GET /assets/{id} under load, (b) the same 800 px WebP variant asked again and again (made once, then read from
 * storage), (c) BENCH_ASSETS_FRESH fresh transforms one at a time (a new width each, so each is made), and (d) 20
 * fresh transforms at once, with the peak RSS of the Strata process while they run. There is no ceiling: the work
 * is libvips' and the storage's, not SQL.
 */
import sharp from 'sharp';
import { ADMIN } from '../test/helpers/test-app.js';
import type { Child } from './ipc.js';
import { load, type LoadResult, type LoadSettings } from './load.js';
import type { ServerCounters } from './server.js';

export interface BatchResult {
  requests: number;
  /** Answers by status (e.g. { "200": 20 }); a failed connection counts as status 0. */
  statuses: Record<string, number>;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The first non-200 answer's body (its error code and message), or null. */
  firstError: string | null;
}

export interface AssetsResult {
  image: { width: number; height: number; bytes: number; uploadMs: number };
  original: LoadResult;
  /** The original asked one at a time: what one download costs without the load's queueing. */
  originalSequential: BatchResult;
  cachedTransform: LoadResult;
  freshTransforms: BatchResult;
  concurrentFresh: BatchResult & { concurrency: number; rssBeforeMb: number; peakRssMb: number };
}

const WIDTH = 4000;
const HEIGHT = 3000;
const CONCURRENT_FRESH = 20;

/** A photo-sized JPEG: a smooth gradient with noise over it, so that it neither compresses to nothing nor to noise. */
export async function makeTestJpeg(): Promise<Buffer> {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  let seed = 12345;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      // A fixed pseudo-random sequence: the same image on every run.
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      const noise = (seed % 41) - 20;
      const at = (y * WIDTH + x) * 3;
      pixels[at] = clamp((x / WIDTH) * 255 + noise);
      pixels[at + 1] = clamp((y / HEIGHT) * 255 + noise);
      pixels[at + 2] = clamp(128 + 100 * Math.sin((x + y) / 300) + noise);
    }
  }
  return sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

function clamp(value: number): number {
  return value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
}

async function upload(base: string, jpeg: Buffer): Promise<string> {
  const form = new FormData();
  form.append('title', 'bench 12 MP');
  form.append('file', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'bench-12mp.jpg');
  const response = await fetch(`${base}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN.token}` },
    body: form,
    signal: AbortSignal.timeout(120_000),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`assets: upload answered ${response.status}: ${body.slice(0, 200)}`);
  return String((JSON.parse(body) as { data: { id: string } }).data.id);
}

/** GETs each URL, `concurrency` at a time, reading each body to the end; latencies and statuses. */
async function batch(urls: string[], concurrency: number): Promise<BatchResult> {
  const times: number[] = [];
  const statuses: Record<string, number> = Object.create(null);
  let next = 0;
  let firstError: string | null = null;
  const start = performance.now();
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const t = performance.now();
      let status = 0;
      try {
        const response = await fetch(url, {
          headers: { authorization: `Bearer ${ADMIN.token}` },
          signal: AbortSignal.timeout(120_000),
        });
        const body = await response.arrayBuffer();
        status = response.status;
        if (status !== 200) firstError ??= Buffer.from(body).toString('utf8').slice(0, 200);
      } catch (error) {
        status = 0;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
      times.push(performance.now() - t);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, urls.length) }, worker));
  const elapsed = (performance.now() - start) / 1000;
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]!);
  return {
    requests: urls.length,
    statuses: { ...statuses },
    reqPerSec: Math.round((urls.length / elapsed) * 100) / 100,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: Math.round(times[times.length - 1]!),
    firstError,
  };
}

export async function benchAssets(
  strata: Child,
  base: string,
  settings: { duration: number; connections: number; fresh: number },
): Promise<AssetsResult> {
  const jpeg = await makeTestJpeg();
  let t0 = performance.now();
  const id = await upload(base, jpeg);
  const uploadMs = Math.round(performance.now() - t0);
  const headers = { authorization: `Bearer ${ADMIN.token}` };
  const loadSettings: LoadSettings = { duration: settings.duration, connections: settings.connections, headers };
  const asset = `${base}/assets/${id}`;
  console.log(`   assets: ${(jpeg.length / 1_048_576).toFixed(1)} MB JPEG uploaded in ${uploadMs} ms`);

  const originalSequential = await batch(Array<string>(5).fill(asset), 1);
  const original = await load(asset, loadSettings);
  // The first request makes the variant; the load then reads it from storage.
  const cachedUrl = `${asset}?width=800&format=webp`;
  const first = await batch([cachedUrl], 1);
  if (!first.statuses['200']) throw new Error(`assets: the 800 px WebP answered ${Object.keys(first.statuses)}`);
  const cachedTransform = await load(cachedUrl, loadSettings);

  // Widths never asked before (the cached one is 800): each request makes a variant.
  const freshUrls = Array.from({ length: settings.fresh }, (_, i) => `${asset}?width=${1000 + i}&format=webp`);
  const freshTransforms = await batch(freshUrls, 1);

  const concurrentUrls = Array.from(
    { length: CONCURRENT_FRESH },
    (_, i) => `${asset}?width=${1000 + settings.fresh + i}&format=webp`,
  );
  await strata.call('mark');
  const rssBeforeMb = (await strata.call<ServerCounters>('read')).peakMb;
  t0 = performance.now();
  const concurrent = await batch(concurrentUrls, CONCURRENT_FRESH);
  const peakRssMb = (await strata.call<ServerCounters>('read')).peakMb;
  return {
    image: { width: WIDTH, height: HEIGHT, bytes: jpeg.length, uploadMs },
    original,
    originalSequential,
    cachedTransform,
    freshTransforms,
    concurrentFresh: {
      ...concurrent,
      concurrency: CONCURRENT_FRESH,
      rssBeforeMb: Math.round(rssBeforeMb),
      peakRssMb: Math.round(peakRssMb),
    },
  };
}

export function printAssets(result: AssetsResult): void {
  const { image } = result;
  console.log(
    `\nassets: ${image.width}×${image.height} JPEG of ${(image.bytes / 1_048_576).toFixed(1)} MB (upload ${image.uploadMs} ms)`,
  );
  const fromLoad = (name: string, r: LoadResult) => ({
    case: name,
    'req/s': Math.round(r.reqPerSec * 10) / 10,
    'p50 ms': r.p50Ms,
    'p99 ms': r.p99Ms,
    'non-2xx': r.non2xx + r.errors,
  });
  const fromBatch = (name: string, r: BatchResult) => ({
    case: name,
    'req/s': r.reqPerSec,
    'p50 ms': r.p50Ms,
    'p99 ms': r.p99Ms,
    'non-2xx': r.requests - (r.statuses['200'] ?? 0),
  });
  const c = result.concurrentFresh;
  console.table([
    fromLoad('(a) original', result.original),
    fromBatch('(a) original, one at a time', result.originalSequential),
    fromLoad('(b) cached 800 px WebP', result.cachedTransform),
    fromBatch(`(c) ${result.freshTransforms.requests} fresh, one at a time`, result.freshTransforms),
    fromBatch(`(d) ${c.concurrency} fresh at once`, c),
  ]);
  console.log(
    `(d) Strata RSS ${c.rssBeforeMb} MB before, peak ${c.peakRssMb} MB during; statuses ${JSON.stringify(c.statuses)}`,
  );
  for (const [name, r] of [
    ['(c)', result.freshTransforms],
    ['(d)', c],
  ] as const)
    if (r.firstError) console.log(`${name} first error: ${r.firstError}`);
}
