import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SQLITE_POLL_MS } from '../../src/storage/sqlite/sqlite-feed-signals.js';
import { bearer, type BenchContext } from '../harness/context.js';
import { scratchSqliteFile } from '../harness/datasets.js';
import { startHeldClients } from '../harness/held-clients.js';
import { httpsGet } from '../harness/https-get.js';
import { loadAverage, processCpuMicros, processMemory } from '../harness/proc-stats.js';
import { type ServerProcess, startServerProcess } from '../harness/processes.js';
import { figuresRow, loadRow, ratio } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';
import { startRealServer } from '../harness/servers.js';
import { startWriter, type UserKey, type WriterProcess } from '../harness/writer-process.js';
import { LONG_POLL_SECTION } from './long-poll-latency.js';

/** After every meal: the page is empty and the request is held (each user has one meal, so a change clock). */
const AFTER_ALL = '2100-01-01T00:00:00.000Z';
const WAIT_SECONDS = 120;
/** Every measurement of a batch must end before the first request's wait does (it would be answered). */
const MEASURED_WITHIN_S = WAIT_SECONDS - 10;
const CLIENT_PROCESSES = 2;
/** TLS handshakes in flight per client process: far from the server's 10 s handshake bound. */
const HANDSHAKES_IN_FLIGHT = 50;
/** A change of a user nobody waits for, this often, in the foreign-writes window. */
const FOREIGN_WRITE_EVERY_MS = 50;
/** How often the polling alternative asks: the minimum interval (docs/api.md#limits). */
const POLL_EVERY_S = 3;
const HOLD_CEILING_SCRIPT = path.join(import.meta.dirname, '..', 'harness', 'hold-ceiling-server.ts');

const KIB = 1024;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** What one process spent holding the batch. */
interface Held {
  readonly held: number;
  readonly openSeconds: number;
  /** The server's CPU from the first connection to the last request written, per connection. */
  readonly openCpuMsPerHeld: number;
  readonly rssBeforeKb: number;
  readonly rssAfterKb: number;
  readonly anonBeforeKb: number;
  readonly anonAfterKb: number;
  readonly hwmKb: number;
  readonly idleCpuPct: number;
  /** With the writer: CPU while another process commits changes of users nobody waits for. */
  readonly foreignWritesCpuPct: number | undefined;
  readonly foreignWrites: number;
  readonly clientRssMb: number;
}

function request(url: string, key: string): string {
  const { host } = new URL(url);
  return (
    `GET /v1/meals?lastModifiedSince=${AFTER_ALL}&wait=${WAIT_SECONDS} HTTP/1.1\r\n` +
    `Host: ${host}\r\nAuthorization: Bearer ${key}\r\n\r\n`
  );
}

/** CPU of a process over `seconds`, in % of one core. */
async function cpuPct(pid: number, seconds: number, during?: (until: number) => Promise<void>): Promise<number> {
  const before = processCpuMicros(pid);
  const started = performance.now();
  const until = started + seconds * 1000;
  await (during === undefined ? sleep(seconds * 1000) : during(until));
  const wallMs = performance.now() - started;
  return round(((processCpuMicros(pid) - before) / 1000 / wallMs) * 100, 2);
}

/**
 * Opens one connection per key on the server, each holding `wait=120`, then reads the
 * server's memory and its CPU while they wait. Every request must still be held at the end
 * (none answered, none closed) or the figures would not be of held requests.
 */
async function holdBatch(
  context: BenchContext,
  server: ServerProcess,
  keys: readonly UserKey[],
  writer: WriterProcess | undefined,
): Promise<Held> {
  const { options, certificate } = context;
  // Settled before: what the server holds with no connection.
  await sleep(1000);
  const before = processMemory(server.pid);
  const clients = await startHeldClients(CLIENT_PROCESSES, HANDSHAKES_IN_FLIGHT);
  try {
    const started = performance.now();
    const openCpu = processCpuMicros(server.pid);
    const opened = await clients.open(
      server.url,
      certificate.certFile,
      keys.map(({ key }) => request(server.url, key)),
    );
    const openSeconds = round((performance.now() - started) / 1000);
    const openCpuMsPerHeld = round((processCpuMicros(server.pid) - openCpu) / 1000 / keys.length, 3);
    if (opened.sent !== keys.length || opened.errors > 0)
      throw new Error(
        `${server.name}: ${opened.sent} of ${keys.length} requests sent, ${opened.errors} errors (${opened.firstError})`,
      );
    await sleep(2000);
    const idleCpuPct = await cpuPct(server.pid, options.idleSeconds);
    const after = processMemory(server.pid);
    let foreignWrites = 0;
    const foreignWritesCpuPct =
      writer === undefined
        ? undefined
        : await cpuPct(server.pid, options.idleSeconds, async (until) => {
            while (performance.now() < until) {
              await writer.ask({ op: 'write', userId: 'held-idle-nobody-waits' });
              foreignWrites += 1;
              await sleep(FOREIGN_WRITE_EVERY_MS);
            }
          });
    const status = await clients.status();
    const seconds = (performance.now() - started) / 1000;
    if (status.answered > 0 || status.open !== keys.length)
      throw new Error(`${server.name}: ${status.answered} answered, ${status.open} of ${keys.length} still open`);
    if (seconds > MEASURED_WITHIN_S)
      throw new Error(`${server.name}: measured ${round(seconds)} s after the first request, past its wait`);
    return {
      held: keys.length,
      openSeconds,
      openCpuMsPerHeld,
      rssBeforeKb: before.rssKb,
      rssAfterKb: after.rssKb,
      anonBeforeKb: before.rssAnonKb,
      anonAfterKb: after.rssAnonKb,
      hwmKb: after.hwmKb,
      idleCpuPct,
      foreignWritesCpuPct,
      foreignWrites,
      clientRssMb: round(status.rssKb / KIB),
    };
  } finally {
    await clients.close();
  }
}

const perHeldKib = (held: Held) => round((held.rssAfterKb - held.rssBeforeKb) / held.held, 2);
const anonPerHeldKib = (held: Held) => round((held.anonAfterKb - held.anonBeforeKb) / held.held, 2);

/** The same keys polling every 3 s instead: n / 3 requests a second of empty pages, each with its own key. */
async function pollInstead(context: BenchContext, server: ServerProcess, keys: readonly UserKey[]) {
  let next = 0;
  const rate = keys.length / POLL_EVERY_S;
  const load = await context.measure(server, `/v1/meals?lastModifiedSince=${AFTER_ALL}`, keys[0]?.key ?? '', {
    overallRate: rate,
    setupRequest: (built) => {
      const key = keys[next % keys.length]?.key ?? '';
      next += 1;
      return { ...built, headers: { ...built.headers, ...bearer(key) } };
    },
  });
  return { load, rate };
}

/**
 * Long poll: 10 000 idle held requests on one `serve` process (SQLite), each
 * on its own TLS connection with its own key: the server's RSS per held request and its CPU
 * while they wait; the same with another process committing changes of a user nobody waits
 * for (each commit makes the next 100 ms look read the clocks of every watched user); and
 * the same 10 000 keys polling every 3 s instead. Baseline for memory: bare node:https
 * holding the same requests on the same TLS settings (bench/harness/hold-ceiling-server.ts),
 * what Node and OpenSSL take per held TLS request before any of the service's own.
 */
export const heldIdle: Scenario = {
  name: 'held-idle',
  question: 'What do 10 000 idle held requests cost one process, against polling every 3 s?',
  standalone: true,
  async run(context) {
    const { options, certificate } = context;
    const count = options.heldConnections;
    const file = scratchSqliteFile('held-idle');
    const writer = await startWriter({ db: file.db });
    const load = loadAverage();
    try {
      const prefix = `held-${randomBytes(4).toString('hex')}-`;
      const created = performance.now();
      const { keys } = await writer.ask({ op: 'keys', prefix, count, withMeal: true });
      context.log(`  ${count} users with a key and a meal made in ${round((performance.now() - created) / 1000)} s`);

      const server = await startRealServer(file.db, undefined, ['--max-waiting', String(count)]);
      let real: Held;
      let poll: Awaited<ReturnType<typeof pollInstead>>;
      try {
        // Warm: the code paths of a page and of a held request have run before the first figure.
        const first = keys[0]?.key ?? '';
        for (let i = 0; i < 20; i += 1)
          await httpsGet(`${server.url}/v1/meals?lastModifiedSince=${AFTER_ALL}`, certificate.ca, bearer(first));
        await httpsGet(`${server.url}/v1/meals?lastModifiedSince=${AFTER_ALL}&wait=1`, certificate.ca, bearer(first));
        real = await holdBatch(context, server, keys, writer);
        poll = await pollInstead(context, server, keys);
      } finally {
        await server.stop();
      }

      const ceilingServer = await startServerProcess('hold-ceiling', [
        '--import',
        'tsx',
        HOLD_CEILING_SCRIPT,
        '--cert',
        certificate.certFile,
        '--key',
        certificate.keyFile,
      ]);
      let ceiling: Held;
      try {
        ceiling = await holdBatch(context, ceilingServer, keys, undefined);
      } finally {
        await ceilingServer.stop();
      }

      const pollCores = (poll.load.cpuUsPerReq * poll.rate) / 1e6;
      return [
        {
          ...figuresRow(`held-${count / 1000}k-idle`, {
            section: LONG_POLL_SECTION,
            held: count,
            open_seconds: real.openSeconds,
            open_cpu_ms_per_held: real.openCpuMsPerHeld,
            ceiling_open_cpu_ms_per_held: ceiling.openCpuMsPerHeld,
            rss_before_mb: round(real.rssBeforeKb / KIB),
            rss_after_mb: round(real.rssAfterKb / KIB),
            vm_hwm_mb: round(real.hwmKb / KIB),
            rss_per_held_kib: perHeldKib(real),
            anon_per_held_kib: anonPerHeldKib(real),
            goal_rss_per_held_kib: 64,
            rss_goal_met: perHeldKib(real) <= 64,
            idle_cpu_pct: real.idleCpuPct,
            goal_idle_cpu_pct: 2,
            idle_cpu_goal_met: real.idleCpuPct < 2,
            foreign_writes_per_s: round(real.foreignWrites / options.idleSeconds),
            foreign_writes_cpu_pct: real.foreignWritesCpuPct,
            // A look that finds data_version moved reads every watched user's clock: its CPU, from
            // what the writes add to the idle CPU, at one look per SQLITE_POLL_MS when they come faster.
            foreign_look_cpu_ms: round(
              (((real.foreignWritesCpuPct ?? 0) - real.idleCpuPct) * 10) /
                Math.min(real.foreignWrites / options.idleSeconds, 1000 / SQLITE_POLL_MS),
            ),
            ceiling_rss_per_held_kib: perHeldKib(ceiling),
            ceiling_anon_per_held_kib: anonPerHeldKib(ceiling),
            ceiling_rss_before_mb: round(ceiling.rssBeforeKb / KIB),
            ceiling_rss_after_mb: round(ceiling.rssAfterKb / KIB),
            ceiling_idle_cpu_pct: ceiling.idleCpuPct,
            ceiling_open_seconds: ceiling.openSeconds,
            rss_vs_ceiling: ratio(perHeldKib(real), perHeldKib(ceiling)),
            client_rss_mb: real.clientRssMb,
            idle_seconds: options.idleSeconds,
            load_avg: load,
          }),
          rss_mb: round(real.rssAfterKb / KIB),
        },
        loadRow(`poll-${count / 1000}k-every-${POLL_EVERY_S}s`, poll.load, undefined, {
          section: LONG_POLL_SECTION,
          keys: count,
          poll_every_s: POLL_EVERY_S,
          target_rps: round(poll.rate),
          cores_at_target: round(pollCores, 3),
          cpu_pct_at_target: round(pollCores * 100),
          vs_held_idle_cpu: Math.round((pollCores * 100) / real.idleCpuPct),
        }),
      ];
    } finally {
      await writer.stop();
      file.remove();
    }
  },
};
