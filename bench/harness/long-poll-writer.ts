import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type postgres from 'postgres';
import type * as HostModule from '../../src/meal-host/meal-host.js';
import type { MealInput } from '../../src/meal-host/meal-host-types.js';
import type * as ServerModule from '../../src/server.js';
import type * as StorageModule from '../../src/storage/open-storage.js';
import type * as ConnectModule from '../../src/storage/postgres/postgres-connect.js';
import { type WriterCommand, type WriterMessage, type WriterReplies, wallClock } from './writer-process.js';

/**
 * The long-poll and webhook benchmarks' writer process (bench/harness/writer-process.ts starts it):
 *   MEAL_EXPORT_DATABASE_URL=DB node --import tsx bench/harness/long-poll-writer.ts [--serve DATA_DIR]
 * Writes through the built host module (dist/host, what `meal-export/host` ships) on command
 * over IPC. With --serve it also runs the built API server on the same store handle, as a back
 * end that embeds the API would: its own commits then wake held requests as they commit.
 */

const DIST = path.resolve(import.meta.dirname, '../../dist');
const load = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(DIST, file)).href) as Promise<T>;

const { values } = parseArgs({
  options: { serve: { type: 'string' } },
  strict: true,
});
// The store in the environment, as storeEnv() passes it: out of argv.
const db = process.env.MEAL_EXPORT_DATABASE_URL;
if (db === undefined) throw new Error('usage: MEAL_EXPORT_DATABASE_URL=DB long-poll-writer [--serve DATA_DIR]');
const store: string = db;

const send = (message: WriterMessage) => process.send?.(message);

const { openStorage, isPostgresUrl } = await load<typeof StorageModule>('storage/open-storage.js');
const { createMealHost } = await load<typeof HostModule>('meal-host/meal-host.js');
// As openMealHost opens it (src/meal-host/meal-host.ts: long-lived, so named statements where
// signals show PostgreSQL itself), and with --serve as serve opens it (ServerOptions.storage
// says why).
const storage = await openStorage(db, { serving: values.serve !== undefined, longLived: true });
const host = createMealHost(storage);

let server: ServerModule.RunningServer | undefined;
if (values.serve !== undefined) {
  const { startServer } = await load<typeof ServerModule>('server.js');
  server = await startServer(
    {
      database: db,
      host: '127.0.0.1',
      port: 0,
      dataDir: values.serve,
      tlsCertFile: undefined,
      tlsKeyFile: undefined,
      insecureHttp: false,
      // The limits of the benchmark's real server (bench/harness/servers.ts): never refused.
      minIntervalMs: 0,
      dailyLimit: 1_000_000_000,
      tombstoneDays: 30,
      logLevel: 'warn',
      adminPort: undefined,
      workers: 1,
      redisUrl: undefined,
      redisPrefix: 'meal-export:',
      webhooks: { allowPrivate: false, caFile: undefined },
      maxWaiting: 10_000,
    },
    { storage },
  );
}

/** The `commits` probe's connection and table, made at its first use. */
let probe: postgres.Sql | undefined;
async function commitProbe(): Promise<postgres.Sql> {
  if (!isPostgresUrl(store)) throw new Error('the commit probe is PostgreSQL’s');
  if (probe !== undefined) return probe;
  const { connectPostgres } = await load<typeof ConnectModule>('storage/postgres/postgres-connect.js');
  probe = connectPostgres(store, { max: 1, onnotice: () => undefined });
  await probe`create table if not exists bench_commit_probe (n bigint not null)`;
  return probe;
}

const aMeal = () =>
  ({ type: 'lunch', date: new Date().toISOString(), title: 'long poll', caloriesTotal: 500 }) as const;

async function run(command: WriterCommand): Promise<WriterReplies[keyof WriterReplies]> {
  switch (command.op) {
    case 'clock':
      return { at: wallClock() };
    case 'keys': {
      const keys = [];
      for (let i = 0; i < command.count; i += 1) {
        const userId = `${command.prefix}${i}`;
        // Expiring keys never pile up, even if a run is killed (as context.createKey).
        const created = await host.createKey(userId, { name: 'bench', expiresIn: '2h' });
        if (command.withMeal === true) await host.upsertMeals(userId, [aMeal()]);
        keys.push({ userId, key: created.key });
      }
      return { keys };
    }
    case 'write': {
      const started = wallClock();
      await host.upsertMeals(command.userId, [aMeal()]);
      // The commit has returned to the writer: the moment a caller of the host module knows it.
      const committedAt = wallClock();
      return { committedAt, writeMs: committedAt - started };
    }
    case 'webhooks': {
      const userIds = [];
      for (let i = 0; i < command.count; i += 1) {
        const userId = `${command.prefix}${i}`;
        await host.createWebhook(userId, command.url, { name: 'bench' });
        userIds.push(userId);
      }
      return { userIds };
    }
    case 'burst': {
      const startedAt = wallClock();
      for (const userId of command.userIds) await host.upsertMeals(userId, [aMeal()]);
      return { startedAt, committedAt: wallClock() };
    }
    case 'import': {
      const { idPrefix } = command;
      const meal = (i: number): MealInput => (idPrefix === undefined ? aMeal() : { id: `${idPrefix}${i}`, ...aMeal() });
      const batches: MealInput[][] = [];
      for (let done = 0; done < command.meals; done += command.batch) {
        batches.push(Array.from({ length: Math.min(command.batch, command.meals - done) }, (_, i) => meal(done + i)));
      }
      const started = performance.now();
      const cpu = process.cpuUsage();
      for (const batch of batches) await host.upsertMeals(command.userId, batch);
      const used = process.cpuUsage(cpu);
      return { ms: performance.now() - started, cpuUs: used.user + used.system };
    }
    case 'saves': {
      const records = Array.from({ length: command.meals }, (_, i) => ({ id: `${command.idPrefix}${i}`, ...aMeal() }));
      const started = performance.now();
      const cpu = process.cpuUsage();
      for (const { id, ...record } of records) await host.saveMeal(command.userId, id, record);
      const used = process.cpuUsage(cpu);
      return { ms: performance.now() - started, cpuUs: used.user + used.system };
    }
    case 'commits': {
      const sql = await commitProbe();
      const started = performance.now();
      for (let i = 0; i < command.count; i += 1) await sql`insert into bench_commit_probe values (${i})`;
      return { ms: performance.now() - started };
    }
    case 'stop':
      await probe?.end();
      await server?.close();
      await host.close();
      setImmediate(() => process.exit(0));
      return {};
  }
}

process.on('message', (message: { id: number; command: WriterCommand }) => {
  run(message.command).then(
    (body) => send({ type: 'reply', id: message.id, body }),
    (error: unknown) =>
      send({
        type: 'failed',
        id: message.id,
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  );
});
// The benchmark went away: so does the writer (and the server it runs).
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', url: server?.url, pid: process.pid });
