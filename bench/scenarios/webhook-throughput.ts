import { randomBytes } from 'node:crypto';
import type { BenchContext } from '../harness/context.js';
import { scratchSqliteFile } from '../harness/datasets.js';
import { loadAverage, processCpuMicros } from '../harness/proc-stats.js';
import { figuresRow, type ScenarioRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';
import { startRealServer } from '../harness/servers.js';
import { type BenchReceiver, startBenchReceiver } from '../harness/webhook-receiver.js';
import { startWriter } from '../harness/writer-process.js';
import { WEBHOOKS_SECTION } from './webhook-latency.js';

/** The dispatcher's calls under way at most (src/webhooks/webhook-dispatcher.ts, DEFAULT_MAX_IN_FLIGHT). */
const MAX_IN_FLIGHT = 16;

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** How `serve` comes to trust the receiver's certificate. */
interface Trust {
  readonly name: string;
  readonly label: string;
  serve(receiver: BenchReceiver): { readonly args: readonly string[]; readonly env: Record<string, string> };
}

const TRUSTS: readonly Trust[] = [
  {
    name: 'webhook-calls-per-second',
    label: 'the receiver’s CA in the process’s default trust store (NODE_EXTRA_CA_CERTS), as a public CA would be',
    serve: (receiver) => ({ args: ['--webhook-allow-private'], env: { NODE_EXTRA_CA_CERTS: receiver.caFile } }),
  },
  {
    name: 'webhook-calls-per-second-webhook-ca',
    label: '`--webhook-ca FILE` (the sender’s `ca` option: the default roots and the file)',
    serve: (receiver) => ({ args: receiver.serveArgs, env: {} }),
  },
];

/**
 * Users each with one endpoint; one change of each committed (one upsert each, by a writer
 * process) while no sender runs, so every event is due when `serve` starts; then `serve` drains
 * them. Calls per second from the first call's arrival to the last one's, and the server's CPU
 * per call over that window.
 */
async function measureTrust(context: BenchContext, trust: Trust): Promise<ScenarioRow> {
  const users = context.options.quick ? 1000 : 2000;
  const file = scratchSqliteFile(trust.name);
  const receiver = await startBenchReceiver(trust.name);
  const writer = await startWriter({ db: file.db });
  try {
    const prefix = `wt-${randomBytes(4).toString('hex')}-`;
    const { userIds } = await writer.ask({ op: 'webhooks', prefix, count: users, url: receiver.url });
    const burst = await writer.ask({ op: 'burst', userIds });
    await writer.stop();
    const load = loadAverage();
    let pid = 0;
    let firstAt = 0;
    let firstCpu = 0;
    let callsBefore = 0;
    // The window opens at the first call seen once the server's pid is known (its dispatcher
    // may start before its `listening on` line): the calls after it are the ones counted.
    receiver.onCall((at) => {
      if (firstAt !== 0 || pid === 0) return;
      firstAt = at;
      firstCpu = processCpuMicros(pid);
      callsBefore = receiver.received();
    });
    const lastCall = receiver.callsReached(users, 300_000);
    const { args, env } = trust.serve(receiver);
    const server = await startRealServer(file.db, undefined, args, env);
    pid = server.pid;
    try {
      const lastAt = await lastCall;
      const cpuMicros = processCpuMicros(pid) - firstCpu;
      const seconds = (lastAt - firstAt) / 1000;
      const calls = users - callsBefore;
      return figuresRow(trust.name, {
        section: WEBHOOKS_SECTION,
        deployment: 'SQLite, one `serve` process (its dispatcher), receiver in the benchmark process',
        trust: trust.label,
        rps: round(calls / seconds),
        users,
        calls,
        seconds: round(seconds, 3),
        cpu_us_per_call: Math.round(cpuMicros / calls),
        server_cpu_pct: round(cpuMicros / 1e4 / seconds),
        max_in_flight: MAX_IN_FLIGHT,
        burst_writes_per_s: round(users / ((burst.committedAt - burst.startedAt) / 1000)),
        load_avg: load,
      });
    } finally {
      await server.stop();
    }
  } finally {
    await writer.stop();
    await receiver.close();
    file.remove();
  }
}

/**
 * Webhooks: how many calls a second one sender process sustains to a local
 * receiver, with the receiver trusted as a public CA would be and through `--webhook-ca`.
 */
export const webhookThroughput: Scenario = {
  name: 'webhook-throughput',
  question: 'How many webhook calls a second does one sender process sustain to a local receiver?',
  standalone: true,
  async run(context) {
    const rows: ScenarioRow[] = [];
    for (const trust of TRUSTS) rows.push(await measureTrust(context, trust));
    return rows;
  },
};
