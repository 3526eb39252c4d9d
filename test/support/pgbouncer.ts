import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { freePort } from './free-port.js';
import { TEST_PG_URL } from './postgres.js';
import { makeTempDir } from './project.js';
import { skipUnlessRequired } from './required-services.js';

/**
 * A PgBouncer of the test's own in transaction mode (docs/operations.md#behind-pgbouncer), in
 * front of the test PostgreSQL: Debian's /usr/sbin/pgbouncer (.ci/run installs it), run as the
 * `postgres` OS user when we are root (it refuses to run as root). Two server connections per
 * database, so that consecutive transactions of one client land on different ones: what
 * breaks a LISTEN or a named prepared statement breaks at once.
 */

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];
const OS_USER = 'postgres';

function pgbouncerBin(): string | undefined {
  return CANDIDATES.find((candidate) => existsSync(candidate));
}

/** Why no PgBouncer can be started here (the skip reason), or undefined. */
export function pgbouncerSkipReason(): string | undefined {
  if (pgbouncerBin() === undefined) {
    return skipUnlessRequired(`no pgbouncer at ${CANDIDATES.join(' or ')}: install Debian's pgbouncer package`);
  }
  return undefined;
}

export interface TestPgBouncer {
  /** `url` (a database of the test PostgreSQL) as reached through the pooler. */
  through(url: string): string;
  /** What pgbouncer wrote to stderr so far. */
  log(): string;
  close(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 1, prepare: false, onnotice: () => undefined });
  try {
    await sql.unsafe('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => undefined);
  }
}

/** Starts pgbouncer on a free port of 127.0.0.1, every database name passed through to the test PostgreSQL. */
export async function startPgBouncer(options: { poolSize?: number } = {}): Promise<TestPgBouncer> {
  const bin = pgbouncerBin();
  if (bin === undefined) throw new Error('no pgbouncer installed');
  const target = new URL(TEST_PG_URL);
  const temp = makeTempDir('pgbouncer');
  const port = await freePort();
  const userlist = path.join(temp.dir, 'userlist.txt');
  writeFileSync(userlist, `"${decodeURIComponent(target.username || OS_USER)}" ""\n`);
  const ini = path.join(temp.dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 2}`,
      'max_client_conn = 1000',
      // Each instance names itself; nothing else in the start-up packet is refused.
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(bin, asRoot ? ['-u', OS_USER, ini] : [ini], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString('utf8');
  });
  const through = (url: string) => {
    const next = new URL(url);
    next.hostname = '127.0.0.1';
    next.port = String(port);
    return next.href;
  };
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    temp.remove();
  };
  const started = Date.now();
  while (!(await answers(through(TEST_PG_URL)))) {
    if (child.exitCode !== null || Date.now() - started > 10_000) {
      await close();
      throw new Error(`pgbouncer did not start:\n${stderr}`);
    }
    await sleep(50);
  }
  return { through, log: () => stderr, close };
}
