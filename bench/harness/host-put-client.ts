import { readFileSync } from 'node:fs';
import https from 'node:https';
import { parseArgs } from 'node:util';
import { quantile, round } from './load.js';
import {
  type PutClientMessage,
  type PutCommand,
  putMealJson,
  type PutRun,
  SERVICE_TOKEN_ENV,
} from './host-put-load.js';

/**
 * The host API benchmark's load client (bench/harness/host-put-load.ts starts it):
 *   MEAL_EXPORT_BENCH_SERVICE_TOKEN=mxs_… node --import tsx bench/harness/host-put-client.ts \
 *     --url https://127.0.0.1:PORT --ca CERT.pem --connections N
 * PUTs one new meal a request over at most N keep-alive TLS connections, on command over IPC.
 * node:https rather than autocannon: the open loop needs requests sent on a schedule, not on
 * the answers, and each request its own meal id in the path.
 */

const { values } = parseArgs({
  options: { url: { type: 'string' }, ca: { type: 'string' }, connections: { type: 'string' } },
  strict: true,
});
const token = process.env[SERVICE_TOKEN_ENV];
if (values.url === undefined || values.ca === undefined || token === undefined)
  throw new Error(`usage: ${SERVICE_TOKEN_ENV}=TOKEN host-put-client --url URL --ca FILE --connections N`);
const target = new URL(values.url);
const connections = Number(values.connections ?? 8);
// One agent for the process's life: the connections stay open from the warm-up on, so no
// measured window pays for handshakes.
const agent = new https.Agent({ keepAlive: true, maxSockets: connections, ca: readFileSync(values.ca) });

/** One PUT; resolves when its answer is in, rejects unless it is 200 `created`. */
function put(path: string, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: 'PUT',
        path,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          if (response.statusCode === 200 && text.includes('"outcome":"created"')) resolve();
          else reject(new Error(`PUT ${path}: ${response.statusCode} ${text.slice(0, 300)}`));
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function run(command: Exclude<PutCommand, { op: 'stop' }>): Promise<PutRun> {
  const users = Array.from(
    { length: connections },
    (_, k) => `/host/v1/users/${encodeURIComponent(`${command.prefix}-user-${k}`)}/meals/`,
  );
  const meal = encodeURIComponent(`${command.prefix}-`);
  const pathOf = (user: number, n: number) => `${users[user % connections] ?? ''}${meal}${n}`;
  const body = Buffer.from(putMealJson());
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + command.seconds * 1000;
  if (command.op === 'closed') {
    const loop = async (_: unknown, user: number) => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        await put(pathOf(user, next++), body);
        latencies.push(performance.now() - sent);
      }
    };
    await Promise.all(Array.from({ length: connections }, loop));
  } else {
    const total = Math.round(command.rate * command.seconds);
    const everyMs = 1000 / command.rate;
    const answers: Array<Promise<void>> = [];
    // Timers fire late by up to a millisecond or so: every PUT already due goes out at once, and
    // its latency still counts from when it was due.
    await new Promise<void>((resolve) => {
      const tick = () => {
        while (next < total && started + next * everyMs <= performance.now()) {
          const due = started + next * everyMs;
          answers.push(put(pathOf(next, next), body).then(() => void latencies.push(performance.now() - due)));
          next += 1;
        }
        if (next >= total) resolve();
        else setTimeout(tick, Math.max(0, started + next * everyMs - performance.now()));
      };
      tick();
    });
    await Promise.all(answers);
  }
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    ms: round(ms, 1),
    rps: round((latencies.length * 1000) / ms, 1),
    p50Ms: round(quantile(sorted, 0.5), 3),
    p99Ms: round(quantile(sorted, 0.99), 3),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN, 3),
    clientCpuPct: round(((used.user + used.system) / 1000 / ms) * 100, 1),
  };
}

const send = (message: PutClientMessage) => process.send?.(message);
process.on('message', (message: { id: number; command: PutCommand }) => {
  const { id, command } = message;
  if (command.op === 'stop') {
    agent.destroy();
    send({ type: 'reply', id, body: {} });
    setImmediate(() => process.exit(0));
    return;
  }
  run(command).then(
    (body) => send({ type: 'reply', id, body }),
    (error: unknown) =>
      send({ type: 'failed', id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The benchmark went away: so does its client.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
