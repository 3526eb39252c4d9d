import { Counter, Histogram, type Registry } from 'prom-client';
import type { RequestMetrics } from '../listener/request-report.js';

// Seconds: from a cached key's small page (~1 ms) to a first sync's 5000 meals on a busy host.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The names and help texts of a listener's two request series. */
export interface RequestSeries {
  readonly counter: { readonly name: string; readonly help: string };
  readonly latency: { readonly name: string; readonly help: string };
}

/**
 * A listener's requests: a counter by route and status (`aborted`: the client left first) and a
 * latency histogram by route. The public listener and the host API each have one pair.
 */
export function createRequestMetrics(registry: Registry, series: RequestSeries): RequestMetrics {
  const registers = [registry];
  const requests = new Counter({ ...series.counter, labelNames: ['route', 'status'] as const, registers });
  const latency = new Histogram({
    ...series.latency,
    labelNames: ['route'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  // One child per label set, kept: the hot path then skips prom-client's label hashing.
  const requestCounters = new Map<string, Counter.Internal>();
  const latencyHistograms = new Map<string, Histogram.Internal<'route'>>();
  return {
    request(route, status, seconds) {
      const statusLabel = status === null ? 'aborted' : String(status);
      const id = `${route} ${statusLabel}`;
      let counter = requestCounters.get(id);
      if (counter === undefined) {
        counter = requests.labels(route, statusLabel);
        requestCounters.set(id, counter);
      }
      counter.inc();
      let histogram = latencyHistograms.get(route);
      if (histogram === undefined) {
        histogram = latency.labels(route);
        latencyHistograms.set(route, histogram);
      }
      histogram.observe(seconds);
    },
  };
}
