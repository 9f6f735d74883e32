/**
 * Load on one URL: autocannon for a fixed time at a fixed number of connections, in its own worker thread so that
 * the load generator never shares an event loop with what it measures. Plus the small sequential probes the bench
 * makes before loading (status, body, statement counts).
 */
import autocannon from 'autocannon';

export interface LoadSettings {
  /** Seconds. */
  duration: number;
  connections: number;
  headers?: Record<string, string>;
}

export interface LoadResult {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses received. */
  requests: number;
  /** Requests sent (a few may still be in flight when the run ends). */
  sent: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
}

export async function load(url: string, settings: LoadSettings): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: settings.connections,
    duration: settings.duration,
    workers: 1,
    headers: settings.headers,
    // A request that takes longer than this counts as an error instead of holding the run open.
    timeout: 30,
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

export interface Probe {
  status: number;
  body: string;
}

/** One GET, bounded in time. */
export async function probe(url: string, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<Probe> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, body: await response.text() };
}
