import type { WebhookMetrics } from '../webhooks/webhook-service.js';
import { createWebhookMetrics } from './webhook-metrics.js';
import type { Worker } from 'node:cluster';
import type { FastifyBaseLogger } from 'fastify';
import {
  AggregatorRegistry,
  Counter,
  Gauge,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';
import { isRecord } from '../json-record.js';
import type { Scrape } from './admin-listener.js';

/** One process's registry as the admin listener serves it (`serve` without `--workers`). */
export function scrapeRegistry(registry: Registry): Scrape {
  return async () => ({ contentType: registry.contentType, text: await registry.metrics() });
}

const METRICS_REQUEST = 'meal-export:metrics-request';
const METRICS_ANSWER = 'meal-export:metrics-answer';
// A worker that does not answer within this is left out of the scrape, not the scrape itself.
const WORKER_ANSWER_MS = 2_000;

type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/**
 * Makes a worker's registry answer the primary's scrapes over the IPC channel. Each series
 * carries the worker's `worker` label, so one scrape shows every worker.
 */
export function answerPrimaryScrapes(registry: Registry): void {
  process.on('message', (message: unknown) => {
    if (!isRecord(message) || message.type !== METRICS_REQUEST || typeof message.id !== 'number') return;
    const id = message.id;
    void registry.getMetricsAsJSON().then((metrics) => {
      process.send?.({ type: METRICS_ANSWER, id, metrics }, undefined, {}, () => {});
    });
  });
}

/** What the primary itself counts, and the scrape that adds its workers' metrics to it. */
export interface PrimaryMetrics {
  /** The webhook sender's attempts and backlog: the primary sends for the whole host. */
  readonly webhooks: WebhookMetrics;
  workerRestarted(): void;
  workersListening(count: number): void;
  /** The metrics of the workers given (asked over IPC) and the primary's own, in one text. */
  scrape(workers: readonly Worker[]): ReturnType<Scrape>;
}

export function createPrimaryMetrics(log: FastifyBaseLogger): PrimaryMetrics {
  // No default process metrics here: the workers report theirs, under the same names.
  const registry = new Registry();
  const restarts = new Counter({
    name: 'meal_export_worker_restarts_total',
    help: 'Workers started again after an unexpected exit.',
    registers: [registry],
  });
  const listening = new Gauge({
    name: 'meal_export_workers_listening',
    help: 'Workers serving the public port now.',
    registers: [registry],
  });
  let nextId = 0;

  return {
    webhooks: createWebhookMetrics(registry),
    workerRestarted: () => restarts.inc(),
    workersListening: (count) => listening.set(count),
    async scrape(workers) {
      nextId += 1;
      const id = nextId;
      const answers = await Promise.all(workers.map((worker) => askWorker(worker, id)));
      const answered = answers.filter((metrics): metrics is MetricsJson => metrics !== undefined);
      if (answered.length < workers.length) {
        log.warn({ missing: workers.length - answered.length }, 'a worker did not answer the scrape in time');
      }
      // prom-client's aggregation: series with equal labels are summed (none here: each worker
      // labels its own), the rest are kept side by side.
      const all = AggregatorRegistry.aggregate([...answered, await registry.getMetricsAsJSON()]);
      return { contentType: registry.contentType, text: await all.metrics() };
    },
  };
}

/** One worker's metrics, or undefined when it does not answer in time (busy, or just gone). */
function askWorker(worker: Worker, id: number): Promise<MetricsJson | undefined> {
  return new Promise((resolve) => {
    const done = (metrics: MetricsJson | undefined) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(metrics);
    };
    const onMessage = (message: unknown) => {
      if (isRecord(message) && message.type === METRICS_ANSWER && message.id === id && Array.isArray(message.metrics)) {
        done(message.metrics as MetricsJson);
      }
    };
    const onExit = () => done(undefined);
    const timer = setTimeout(() => done(undefined), WORKER_ANSWER_MS);
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    if (worker.isConnected()) worker.send({ type: METRICS_REQUEST, id }, undefined, () => {});
    else done(undefined);
  });
}
