/**
 * Runs the black-box conformance suite (../shared/conformance) against the scale-out
 * deployment: PostgreSQL storage and Redis limits instead of SQLite and in-process ones.
 *
 * The suite drives `npx meal-export …` with `--db <folder>/meal-export.db` and clears every
 * MEAL_EXPORT_* variable, so it cannot be pointed at PostgreSQL by configuration. It runs
 * instead against a stand-in project folder whose `meal-export` bin maps each SQLite path the
 * suite names to a PostgreSQL database of its own (the same path, the same database, for the
 * server and for every CLI call on it) and gives `serve` the shared Redis, then runs this
 * build's dist/bin.js in the same process (so the suite's signals reach the server itself).
 *
 *   npm run build && node --import tsx test/scale-out/run-conformance.ts [SUITE_FOLDER]
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { postgresSkipReason, TEST_PG_URL } from '../support/postgres.js';
import { PROJECT_ROOT } from '../support/project.js';
import { connectTestRedis, deleteKeysUnder, redisSkipReason, TEST_REDIS_URL } from '../support/redis.js';

const DATABASE_PREFIX = 'me_conf_';
const CONFORMANCE = path.resolve(process.argv[2] ?? path.join(PROJECT_ROOT, '..', 'shared', 'conformance'));

const BIN = `#!/usr/bin/env node
// The conformance suite's \`meal-export\`: this build, on PostgreSQL and Redis (run-conformance.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const deployment = JSON.parse(readFileSync(new URL('./deployment.json', import.meta.url), 'utf8'));
const args = process.argv.slice(2);
const at = args.indexOf('--db');
if (at >= 0 && args[at + 1] !== undefined) {
  const name = '${DATABASE_PREFIX}' + createHash('sha256').update(path.resolve(args[at + 1])).digest('hex').slice(0, 20);
  const postgres = createRequire(deployment.projectPackage)('postgres');
  const admin = postgres(deployment.pgUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe('CREATE DATABASE ' + name);
  } catch (error) {
    // Another call of the same run made it first.
    if (error.code !== '42P04' && error.code !== '23505') throw error;
  } finally {
    await admin.end();
  }
  const url = new URL(deployment.pgUrl);
  url.pathname = '/' + name;
  args[at + 1] = url.href;
  if (args[0] === 'serve') args.push('--redis', deployment.redisUrl, '--redis-prefix', name + ':');
}
process.argv = [process.argv[0], deployment.bin, ...args];
await import(pathToFileURL(deployment.bin).href);
`;

async function dropDatabases(): Promise<void> {
  const admin = postgres(TEST_PG_URL, { max: 1, onnotice: () => undefined });
  try {
    const rows = await admin<
      { datname: string }[]
    >`SELECT datname FROM pg_database WHERE datname LIKE ${`${DATABASE_PREFIX}%`}`;
    for (const { datname } of rows) await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const redis = connectTestRedis();
  await deleteKeysUnder(redis, DATABASE_PREFIX);
  await redis.quit();
}

// Without this, `node --test` says only "Could not find" and a run of no case, which reads as a pass.
if (!existsSync(CONFORMANCE)) {
  process.stderr.write(`conformance: no suite at ${CONFORMANCE} (expected ../shared/conformance beside the clone)\n`);
  process.exit(2);
}

const skip = (await postgresSkipReason()) ?? (await redisSkipReason());
if (skip !== undefined) {
  process.stdout.write(`conformance on PostgreSQL + Redis skipped: ${skip}\n`);
  process.exit(0);
}

const folder = mkdtempSync(path.join(tmpdir(), 'meal-export-scale-out-'));
let status: number;
try {
  writeFileSync(
    path.join(folder, 'package.json'),
    JSON.stringify({
      name: 'meal-export',
      version: '0.0.0',
      private: true,
      type: 'module',
      bin: { 'meal-export': 'bin.mjs' },
    }),
  );
  writeFileSync(path.join(folder, 'bin.mjs'), BIN);
  chmodSync(path.join(folder, 'bin.mjs'), 0o755);
  writeFileSync(
    path.join(folder, 'deployment.json'),
    JSON.stringify({
      bin: path.join(PROJECT_ROOT, 'dist', 'bin.js'),
      projectPackage: path.join(PROJECT_ROOT, 'package.json'),
      pgUrl: TEST_PG_URL,
      redisUrl: TEST_REDIS_URL,
    }),
  );
  const run = spawnSync(process.execPath, ['--test', CONFORMANCE], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PROJECT_DIR: folder },
    stdio: 'inherit',
  });
  status = run.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
  await dropDatabases();
}
process.exit(status);
