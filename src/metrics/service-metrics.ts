import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LargePageObserver } from '../http/large-page-gate.js';
import type { RequestMetrics } from '../listener/request-report.js';
import type { LimiterObserver } from '../ratelimit/limiter-observer.js';
import type { WebhookMetrics } from '../webhooks/webhook-service.js';
import type { StorageTimer } from './timed-storage.js';
import { createRequestMetrics } from './request-metrics.js';
import { createWebhookMetrics } from './webhook-metrics.js';

/**
 * Everything one serving process counts for `/metrics` (docs/operations.md#metrics), in its own
 * registry. With `--workers`, each worker has one, labelled with its worker number, and the
 * primary's admin listener adds them up (metrics/cluster-metrics.ts).
 */
export interface ServiceMetrics extends RequestMetrics {
  readonly registry: Registry;
  readonly limiters: LimiterObserver;
  readonly largePages: LargePageObserver;
  /** The long polls held now: read at each scrape from the function given. */
  readonly heldRequests: { count(size: () => number): void };
  /** Registers the webhook sender's metrics: only the process that sends has them (not a worker). */
  webhooks(): WebhookMetrics;
  readonly storageQuery: StorageTimer;
  /** The host API's requests, by route (method and path template) and status (docs/host-api.md#metrics-and-logs). */
  readonly hostRequests: RequestMetrics;
}

const QUERY_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** `labels`: added to every series (the worker number in a cluster). */
export function createServiceMetrics(labels: Readonly<Record<string, string>> = {}): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const publicRequests = createRequestMetrics(registry, {
    counter: {
      name: 'meal_export_http_requests_total',
      help: 'Requests answered by the public listener, by route template (other: unknown paths) and status (aborted: the client left first).',
    },
    latency: {
      name: 'meal_export_http_request_duration_seconds',
      help: 'Time from the request to its answer handed to the socket, by route template.',
    },
  });
  const decisions = new Counter({
    name: 'meal_export_limiter_decisions_total',
    help: 'Limiter decisions: limiter rate (per key) or auth_failures (per address), backend redis or memory.',
    labelNames: ['limiter', 'backend', 'decision'] as const,
    registers,
  });
  const fallbacks = new Counter({
    name: 'meal_export_limiter_fallbacks_total',
    help: 'Switches from the shared limiter store to the in-process fallback.',
    labelNames: ['limiter'] as const,
    registers,
  });
  const recoveries = new Counter({
    name: 'meal_export_limiter_recoveries_total',
    help: 'Returns from the in-process fallback to the shared limiter store.',
    labelNames: ['limiter'] as const,
    registers,
  });
  const onFallback = new Gauge({
    name: 'meal_export_limiter_fallback_active',
    help: '1 while the limiter runs on its in-process fallback (with workers: how many do).',
    labelNames: ['limiter'] as const,
    registers,
  });
  const queries = new Histogram({
    name: 'meal_export_storage_query_duration_seconds',
    help: 'Time of each storage call, by Storage method.',
    labelNames: ['method'] as const,
    buckets: QUERY_BUCKETS,
    registers,
  });
  const largePages = new Counter({
    name: 'meal_export_large_pages_total',
    help: 'Pages of more than 1000 meals admitted by the large-page gate.',
    registers,
  });
  const largePageWaits = new Histogram({
    name: 'meal_export_large_page_wait_seconds',
    help: 'How long large pages waited for their turn (only those that waited).',
    buckets: WAIT_BUCKETS,
    registers,
  });

  let heldNow: () => number = () => 0;
  let webhookMetrics: WebhookMetrics | undefined;
  new Gauge({
    name: 'meal_export_long_polls_held',
    help: 'Requests with wait held now, waiting for a change (at most --max-waiting per process).',
    registers,
    collect() {
      this.set(heldNow());
    },
  });

  const hostRequests = createRequestMetrics(registry, {
    counter: {
      name: 'meal_export_host_api_requests_total',
      help: 'Requests answered by the host API, by route (method and path template; other: unknown paths) and status.',
    },
    latency: {
      name: 'meal_export_host_api_request_duration_seconds',
      help: 'Time from a host API request to its answer, by route.',
    },
  });

  return {
    registry,
    ...publicRequests,
    limiters: {
      decision(limiter, backend, allowed) {
        decisions.inc({ limiter, backend, decision: allowed ? 'allowed' : 'refused' });
      },
      fallback(limiter) {
        fallbacks.inc({ limiter });
        onFallback.set({ limiter }, 1);
      },
      recovered(limiter) {
        recoveries.inc({ limiter });
        onFallback.set({ limiter }, 0);
      },
    },
    largePages: {
      admitted(waitedMs) {
        largePages.inc();
        if (waitedMs > 0) largePageWaits.observe(waitedMs / 1000);
      },
    },
    webhooks() {
      webhookMetrics ??= createWebhookMetrics(registry);
      return webhookMetrics;
    },
    heldRequests: {
      count(size) {
        heldNow = size;
      },
    },
    hostRequests,
    storageQuery(method, seconds) {
      queries.observe({ method }, seconds);
    },
  };
}
