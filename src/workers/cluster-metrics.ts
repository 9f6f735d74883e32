/**
 * /metrics under WORKERS > 1: one scrape answers for the whole instance. The worker that takes the scrape asks its
 * primary, which collects every worker's figures with prom-client's AggregatorRegistry (over the cluster's IPC
 * channel) and sums series with the same labels, as Directus does for PM2 workers; gauges of a fixed fact (the
 * restart count) declare `max` instead.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/** A scrape waits this long for the primary (which waits at most 5 s for each worker: prom-client's bound). */
const SCRAPE_TIMEOUT_MS = 10_000;

interface ScrapeRequest {
  strata: 'metrics';
  id: number;
}

interface ScrapeAnswer {
  strata: 'metrics-text';
  id: number;
  text?: string;
  error?: string;
}

const isScrapeRequest = (message: unknown): message is ScrapeRequest =>
  (message as { strata?: unknown } | null)?.strata === 'metrics';
const isScrapeAnswer = (message: unknown): message is ScrapeAnswer =>
  (message as { strata?: unknown } | null)?.strata === 'metrics-text';

/** In a worker: offers `registry` to the primary's collections, and returns what renders the whole instance's text. */
export function clusterScrape(registry: Registry): () => Promise<string> {
  // Constructed for its side effect: prom-client's worker listener, which answers the primary with `registry`.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  const waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (!isScrapeAnswer(message)) return;
    const entry = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.text !== undefined) entry?.resolve(message.text);
    else entry?.reject(new Error(message.error ?? 'no figures from the primary'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the primary did not collect the workers’ figures in time'));
      }, SCRAPE_TIMEOUT_MS);
      waiting.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      process.send?.({ strata: 'metrics', id } satisfies ScrapeRequest);
    });
}

/** In the primary: answers the workers' scrape requests; returns whether `message` was one. */
export function collectForWorkers(): (worker: Worker, message: unknown) => boolean {
  const aggregator = cluster.isPrimary ? new AggregatorRegistry() : null;
  return (worker, message) => {
    if (!isScrapeRequest(message) || !aggregator) return false;
    const reply = (answer: Omit<ScrapeAnswer, 'strata' | 'id'>) => {
      if (worker.isConnected())
        worker.send({ strata: 'metrics-text', id: message.id, ...answer } satisfies ScrapeAnswer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: Error) => reply({ error: error.message }),
    );
    return true;
  };
}
