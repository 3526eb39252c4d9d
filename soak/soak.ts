import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/free-port.js';
import { createAccounts, createServiceToken, SOAK_SHAPE } from './accounts.js';
import { startAppServers } from './app-servers.js';
import { createCountingTransport } from './counting-transport.js';
import { type Follower, startFollower } from './follower.js';
import { createHostClient } from './host-client.js';
import { createInstance, type Instance } from './instance.js';
import { type Killer, startKiller } from './killer.js';
import { createMealLedger } from './meal-versions.js';
import type { SoakOptions } from './options.js';
import { sampleProcess } from './process-sample.js';
import { startReaders } from './readers.js';
import { judge, type SoakReport } from './report.js';
import { createStatusCounts } from './status-counts.js';
import { createSoakStore } from './store.js';
import { lastChanges, readStoreTruth } from './store-truth.js';
import { allHeard } from './webhook-check.js';
import { startWebhookSink } from './webhook-sink.js';

/** The server's interval for a key (lifted from the contract's 3 s so that the load is busier). */
const MIN_INTERVAL_MS = 1000;
/** The drain: how long the endpoints get, after the load, to hear of the last change. */
const DRAIN_MS = 60_000;
const REFUSE_ONE_IN = 7;

/**
 * The soak: instances of the built service on a store of the run's own, the load against them
 * for `minutes` (with a SIGKILL every `killEverySeconds`), then the drain and the checks.
 */
export async function runSoak(options: SoakOptions, say: (line: string) => void): Promise<SoakReport> {
  const startedAt = new Date();
  const store = await createSoakStore(options);
  const sink = await startWebhookSink(REFUSE_ONE_IN);
  const instances: Instance[] = [];
  try {
    say(`soak: ${options.minutes} min on ${store.label}, ${options.instances} instance(s)`);
    for (let index = 0; index < options.instances; index += 1) {
      const instance = createInstance({
        index,
        port: await freePort(),
        hostApiPort: await freePort(),
        dataDir: store.dataDir,
        args: [
          ...store.serveArgs,
          ...sink.serveArgs,
          ['--min-interval-ms', String(MIN_INTERVAL_MS)],
          ['--daily-limit', '1000000', '--log-level', 'warn'],
        ].flat(),
        env: store.env,
      });
      // One after another: the first makes the certificate in the shared data folder.
      await instance.start();
      instances.push(instance);
    }
    const ca = readFileSync(path.join(store.dataDir, 'tls', 'cert.pem'), 'utf8');
    // The killer starts with the load; the clients made before it ask it through this.
    const chaos: { killer?: Killer } = {};
    const disturbed = () => chaos.killer?.disturbed() ?? false;
    const counts = createStatusCounts();
    const token = await createServiceToken(store.env);
    const host = createHostClient(instances, token, counts, disturbed);
    const accounts = await createAccounts(host, token, options.followers, sink.urlOf);
    for (const endpoint of accounts.endpoints) sink.register(endpoint.index, endpoint.userId, endpoint.secret);
    const started = instances.map((instance) => sampleProcess(instance.pid()));
    const urlOf = (i: number) => instances[i % instances.length]?.url ?? '';
    const transport = (label: string) => createCountingTransport(label, ca, counts, disturbed);

    const ledger = createMealLedger(accounts.userIds, SOAK_SHAPE.mealsPerUser);
    const followers: Follower[] = accounts.followers.map((f, i) =>
      startFollower(f.userId, f.key, urlOf(i), transport(`follower ${i} (${f.userId})`), MIN_INTERVAL_MS),
    );
    const readers = startReaders(
      [
        ...accounts.pollers.map((p, i) => ({
          kind: 'poller' as const,
          apiKey: p.key,
          baseUrl: urlOf(i),
          transport: transport(`poller ${i} (${p.userId})`),
        })),
        ...accounts.keyCallers.map((k, i) => ({
          kind: 'key-info' as const,
          apiKey: k.key,
          baseUrl: urlOf(i + 1),
          transport: transport(`key caller ${i} (${k.userId})`),
        })),
      ],
      MIN_INTERVAL_MS,
    );
    const appServers = startAppServers(ledger, host);
    const loadMs = options.minutes * 60_000;
    const killer = startKiller(instances, options.killEverySeconds, loadMs / 1000);
    chaos.killer = killer;
    say(
      `load: 2 app servers, ${followers.length} followers, ${accounts.pollers.length} pollers, ${accounts.keyCallers.length} key callers, ${accounts.endpoints.length} webhook endpoints`,
    );
    const loadStart = Date.now();
    const progress = setInterval(
      () => say(`  ${Math.round((Date.now() - loadStart) / 1000)} s: writes ${JSON.stringify(appServers.tally)}`),
      60_000,
    );
    await sleep(loadMs);
    clearInterval(progress);

    say('stopping the load');
    await killer.stop();
    await appServers.stop();
    await readers.stop();
    const truth = await readStoreTruth(host, ledger.rows);
    const last = lastChanges(truth);
    say('draining the webhooks (the receiver refuses no more)');
    sink.setRefusing(false);
    const drainStart = Date.now();
    while (!allHeard(sink.endpoints, last) && Date.now() - drainStart < DRAIN_MS) await sleep(250);
    const drainS = Math.round((Date.now() - drainStart) / 100) / 10;
    say('final sync of the followers');
    await Promise.all(followers.map((follower) => follower.finish()));
    const ended = instances.map((instance) => sampleProcess(instance.pid()));
    for (const instance of instances) await instance.stop();
    return judge({
      startedAt,
      options,
      storeLabel: store.label,
      instances: instances.map((instance, i) => ({ instance, start: started[i], end: ended[i] })),
      kills: killer.kills,
      writes: appServers.tally,
      truth,
      lastChanges: last,
      followers: followers.map((follower) => follower.state),
      readers: readers.tally,
      endpoints: sink.endpoints,
      strays: sink.strays(),
      drainS,
      statuses: counts,
    });
  } finally {
    for (const instance of instances) await instance.stop();
    await sink.close();
    await store.remove();
  }
}
