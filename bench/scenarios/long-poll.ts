import { LONG_POLL_SECTION } from './long-poll-latency.js';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createHttpsTransport,
  createMealExportClient,
  type HttpTransport,
  type MealExportClient,
  type SyncPosition,
} from '../../src/client/index.js';
import type { BenchContext } from '../harness/context.js';
import { DATA_DIR } from '../harness/datasets.js';
import { quantile, round } from '../harness/load.js';
import { loadAverage } from '../harness/proc-stats.js';
import { BIN, runMealExport, startServerProcess, storeEnv } from '../harness/processes.js';
import { figuresRow, ratio, type ScenarioRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';

/** One change every this long, for the whole measured period. */
const CHANGE_EVERY_MS = 10_000;
/** The follower's wait: the server's longest, the SDK's default. */
const WAIT_SECONDS = 120;
const USER = 'long_poll_bench';

/** What one consumer did over the period: requests sent, and when each change reached it. */
interface Consumer {
  readonly name: string;
  readonly counts: { requests: number; rateLimited: number };
  /** Meal id → ms from its commit (its modifiedAt) to the page that carried it. */
  readonly latencies: Map<string, number>;
  readonly client: MealExportClient;
}

/** node:https, counting every request sent (a 429 included) and the 429s. */
function countingTransport(ca: string, counts: Consumer['counts']): HttpTransport {
  const inner = createHttpsTransport({ ca });
  return {
    async get(url, headers, signal, options) {
      counts.requests += 1;
      const response = await inner.get(url, headers, signal, options);
      if (response.status === 429) counts.rateLimited += 1;
      return response;
    },
    close: () => inner.close(),
  };
}

function consumer(name: string, url: string, ca: string, apiKey: string): Consumer {
  const counts = { requests: 0, rateLimited: 0 };
  // The SDK's own pace: 3 s, then the interval the server announces (the contract's 3 s here).
  const client = createMealExportClient({ baseUrl: url, apiKey, transport: countingTransport(ca, counts) });
  return { name, counts, latencies: new Map(), client };
}

/**
 * Pulls the changes from `since` until `signal` aborts: a follower in one `sync({ follow })`,
 * a poller in one `sync` to the end after another, which the SDK's pacer spaces 3 s apart.
 */
async function consume(who: Consumer, since: Date, follow: boolean, signal: AbortSignal): Promise<void> {
  let position: SyncPosition | undefined;
  try {
    for (;;) {
      const from = position === undefined ? { since } : { from: position };
      const mode = follow ? { follow, wait: WAIT_SECONDS } : {};
      for await (const step of who.client.sync({ ...from, ...mode, signal })) {
        for (const meal of step.page.meals) {
          who.latencies.set(meal.id, Date.now() - Date.parse(meal.modifiedAt));
        }
        position = step.position;
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    who.client.close();
  }
}

function mealRecord(id: string): Record<string, unknown> {
  return {
    id,
    description: 'followed',
    title: id,
    type: 'snack',
    date: new Date().toISOString(),
    caloriesTotal: 100,
    proteins_g: 1,
    fats_g: 1,
    carbs_g: 1,
    fibers_g: 1,
    sodium_mg: 1,
    iron_mg: 1,
    calcium_mg: 1,
  };
}

function consumerRow(name: string, who: Consumer, changes: number, extra: Record<string, unknown>): ScenarioRow {
  const latencies = Float64Array.from(who.latencies.values()).sort();
  return figuresRow(name, {
    requests: who.counts.requests,
    changes,
    delivered: who.latencies.size,
    requests_per_change: round(who.counts.requests / changes, 2),
    delivery_p50_ms: round(quantile(latencies, 0.5), 0),
    delivery_max_ms: round(quantile(latencies, 1), 0),
    rate_limited: who.counts.rateLimited,
    change_every_s: CHANGE_EVERY_MS / 1000,
    ...extra,
    section: LONG_POLL_SECTION,
  });
}

/**
 * Long poll: requests per delivered change for a consumer following with
 * `wait=120` through the SDK, against one polling every 3 s (the most the interval allows), and
 * how soon each change reaches them. Both follow one user, on keys of their own, over the same
 * period, against a server of this scenario's own on a fresh database with the contract's 3 s
 * interval; a `meals import` (another process) writes one change every 10 s. The poller's
 * figure is the baseline: about 10 / 3 requests per change, and 1.5 s of delay on average.
 */
export const longPoll: Scenario = {
  name: 'follow-vs-poll',
  question: 'Requests per delivered change, and how soon: a follower with wait=120 against a poller every 3 s?',
  async run(context: BenchContext) {
    const changes = context.options.quick ? 4 : 18;
    const folder = path.join(DATA_DIR, 'long-poll');
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    const db = path.join(folder, 'meal-export.db');
    const { certFile, keyFile, ca } = context.certificate;
    const server = await startServerProcess(
      'meal-export serve (long poll)',
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--tls-cert',
        certFile,
        '--tls-key',
        keyFile,
        '--min-interval-ms',
        '3000',
        '--daily-limit',
        '1000000',
        '--log-level',
        'warn',
      ],
      storeEnv(db),
    );
    try {
      const newKey = async () => {
        const out = await runMealExport(['keys', 'create', '--user', USER, '--json'], db);
        return (JSON.parse(out) as { key: string }).key;
      };
      const follower = consumer('follower', server.url, ca, await newKey());
      const poller = consumer('poller', server.url, ca, await newKey());
      const load = loadAverage();
      const stop = new AbortController();
      const since = new Date();
      const started = performance.now();
      const running = [consume(follower, since, true, stop.signal), consume(poller, since, false, stop.signal)];
      // Each change has a period of its own, and comes in its middle.
      const ids: string[] = [];
      for (let i = 0; i < changes; i += 1) {
        await sleep(started + (i + 0.5) * CHANGE_EVERY_MS - performance.now());
        const id = `lp_${Date.now().toString(36)}_${i}`;
        const file = path.join(folder, `change-${i}.jsonl`);
        writeFileSync(file, `${JSON.stringify(mealRecord(id))}\n`);
        await runMealExport(['meals', 'import', '--user', USER, file, '--json'], db);
        ids.push(id);
      }
      await sleep(started + changes * CHANGE_EVERY_MS - performance.now());
      stop.abort();
      await Promise.all(running);
      const seconds = round((performance.now() - started) / 1000, 1);

      const common = { seconds, load_avg: load };
      const follow = consumerRow('follow-wait-120', follower, ids.length, { ...common, wait_s: WAIT_SECONDS });
      const poll = consumerRow('follow-poll-3s', poller, ids.length, { ...common, poll_every_s: 3 });
      const followRate = follow.requests_per_change as number;
      const pollRate = poll.requests_per_change as number;
      return [
        // The same-run baseline is the poller: below 1, the follower spends fewer requests.
        { ...follow, requests_vs_poller: ratio(followRate, pollRate), poller_vs_follow: ratio(pollRate, followRate) },
        poll,
      ];
    } finally {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
};
