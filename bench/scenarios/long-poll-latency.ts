import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { bearer, type BenchContext } from '../harness/context.js';
import {
  type LatencySample,
  type LatencySetup,
  type SetupOrSkipped,
  latencyRow,
  measureSamples,
  round,
  runLatencyCases,
  summary,
} from '../harness/commit-latency.js';
import { scratchSqliteFile } from '../harness/datasets.js';
import { startScaleOut } from '../harness/scale-out.js';
import { httpsGet } from '../harness/https-get.js';
import { ratio, type ScenarioRow } from '../harness/results.js';
import type { MealPageBody, Scenario } from '../harness/scenario.js';
import { SERVER_HOME, startRealServer } from '../harness/servers.js';
import { startWriter, wallClock } from '../harness/writer-process.js';

/** Rows of the long-poll section of the report (bench/harness/report-long-poll.ts). */
export const LONG_POLL_SECTION = 'long-poll';

const OLD = '1970-01-01T00:00:00.000Z';
const WAIT_SECONDS = 60;
/**
 * Between sending a request and the write that wakes it: long enough for the request to be
 * held (it is read and held within a few ms), and random so that the write never falls at
 * the same point of SQLite's 100 ms look for other processes' commits every time.
 */
const SETTLE_MS = [100, 200] as const;

/** A server and a writer, and what the row says of them. */
interface Setup extends LatencySetup {
  /** The server the requests are held on. */
  readonly url: string;
}

interface Case {
  readonly name: string;
  /** Who commits the change that wakes the held request. */
  readonly wokenBy: string;
  /** The goal for p99. */
  readonly goalP99Ms: number;
  setup(context: BenchContext): Promise<SetupOrSkipped<Setup>>;
}

const CASES: readonly Case[] = [
  {
    name: 'long-poll-in-process',
    wokenBy: 'a write through the serving process’s own store handle (startServer’s `storage` option)',
    goalP99Ms: 250,
    async setup() {
      const file = scratchSqliteFile('long-poll-in-process');
      const writer = await startWriter({ db: file.db, serveDataDir: SERVER_HOME });
      return {
        url: writer.url ?? '',
        writer,
        extra: { deployment: 'SQLite, API and writer in one process' },
        async close() {
          await writer.stop();
          file.remove();
        },
      };
    },
  },
  {
    name: 'long-poll-sqlite-process',
    wokenBy: '`meal-export/host` in another process on the same SQLite file',
    goalP99Ms: 1000,
    async setup() {
      const file = scratchSqliteFile('long-poll-sqlite-process');
      const writer = await startWriter({ db: file.db });
      const server = await startRealServer(file.db).catch(async (error: unknown) => {
        await writer.stop();
        throw error;
      });
      return {
        url: server.url,
        writer,
        extra: { deployment: 'SQLite, `serve` and a writer process' },
        async close() {
          await server.stop();
          await writer.stop();
          file.remove();
        },
      };
    },
  },
  {
    name: 'long-poll-pg-instance',
    wokenBy:
      '`meal-export/host` in another process, on PostgreSQL directly; held by the second of two `serve` instances',
    goalP99Ms: 1000,
    async setup(context) {
      // A deployment of its own, unseeded: the samples make their own users.
      const started = await startScaleOut(context.options, context.log, 'empty');
      if (!started.ok) return { skipped: started.reason };
      const { scaleOut } = started;
      // Instance B beside the deployment's own (A), on the same database and Redis.
      const other = await startRealServer(scaleOut.db, undefined, scaleOut.serveArgs, scaleOut.serveEnv).catch(
        async (error: unknown) => {
          await scaleOut.stop();
          throw error;
        },
      );
      const writer = await startWriter({ db: scaleOut.db });
      return {
        url: other.url,
        writer,
        extra: { deployment: 'PostgreSQL + Redis, two `serve` instances' },
        async close() {
          await writer.stop();
          await other.stop();
          await scaleOut.stop();
        },
      };
    },
  },
];

/** One held request: commit to answer, its plain twin's time, and how long it was held before the commit. */
interface HeldSample extends LatencySample {
  readonly plainMs: number;
  readonly heldMs: number;
}

/**
 * Times `samples` held requests, each of a fresh user and key: sent with `wait`, held, then
 * woken by one meal written by the writer. Commit to answer: from the moment the writer's
 * write returned (its clock, brought to ours by the measured offset) to the moment the whole
 * answer has arrived here. The baseline: right after, the same key asks the same page without
 * `wait` on a kept-alive connection to the same server, whose answer is the same bytes: the
 * time of an answer that waits for nothing.
 */
async function measureCase(context: BenchContext, item: Case, setup: Setup): Promise<ScenarioRow> {
  const { certificate, options } = context;
  const prefix = `lp-${item.name}-${randomBytes(4).toString('hex')}-`;
  const { keys } = await setup.writer.ask({ op: 'keys', prefix, count: options.longPollSamples });
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await httpsGet(`${setup.url}/healthz`, certificate.ca, {}, agent);
    const measured = await measureSamples(
      setup.writer,
      keys,
      SETTLE_MS,
      async ({ userId, key }, clock, settle): Promise<HeldSample> => {
        const pathAndQuery = `/v1/meals?lastModifiedSince=${OLD}`;
        const sentAt = wallClock();
        const held = httpsGet(`${setup.url}${pathAndQuery}&wait=${WAIT_SECONDS}`, certificate.ca, bearer(key)).then(
          (response) => ({ response, at: wallClock() }),
        );
        await settle();
        const wrote = await setup.writer.ask({ op: 'write', userId });
        const { response, at } = await held;
        const body = JSON.parse(response.body.toString('utf8')) as MealPageBody;
        if (response.status !== 200 || body.count !== 1)
          throw new Error(`${item.name}: held request answered ${response.status} with ${body.count} meals`);
        const committedAt = wrote.committedAt + clock.offsetMs;

        const before = wallClock();
        const again = await httpsGet(`${setup.url}${pathAndQuery}`, certificate.ca, bearer(key), agent);
        const plainMs = wallClock() - before;
        if (!again.body.equals(response.body)) throw new Error(`${item.name}: the plain request's answer differs`);
        return { latencyMs: at - committedAt, writeMs: wrote.writeMs, plainMs, heldMs: committedAt - sentAt };
      },
    );
    const woken = summary(measured.samples.map((sample) => sample.latencyMs));
    const baseline = summary(measured.samples.map((sample) => sample.plainMs));
    return latencyRow(item.name, {
      section: LONG_POLL_SECTION,
      about: { woken_by: item.wokenBy },
      setup,
      measured,
      beforeGoal: {
        plain_p50_ms: baseline.p50,
        plain_p99_ms: baseline.p99,
        p50_vs_plain: ratio(woken.p50, baseline.p50),
        p99_vs_plain: ratio(woken.p99, baseline.p99),
      },
      goalP99Ms: item.goalP99Ms,
      afterGoal: { held_before_commit_min_ms: round(Math.min(...measured.samples.map((sample) => sample.heldMs)), 1) },
    });
  } finally {
    agent.destroy();
  }
}

/**
 * Long poll: how long after a change commits is a request held for it
 * answered, p50 and p99, when the change is committed (a) by the serving process itself, (b)
 * by another process on SQLite, (c) by a process on PostgreSQL while a second instance holds
 * the request. Against the same server's answer to the same request without `wait`.
 */
export const longPollLatency: Scenario = {
  name: 'long-poll-latency',
  question: 'How soon after a commit is a held request answered (in-process, another process, another instance)?',
  standalone: true,
  run: (context) =>
    runLatencyCases(
      LONG_POLL_SECTION,
      CASES,
      (item) => item.setup(context),
      (item, setup) => measureCase(context, item, setup),
    ),
};
