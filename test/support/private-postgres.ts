import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from './project.js';
import { freePort } from './free-port.js';
import { skipUnlessRequired } from './required-services.js';

/**
 * A PostgreSQL cluster of the test's own, for tests that must do what the machine's shared
 * server must never see (fill its disk, stop it). Made the way .ci/run makes its private
 * cluster: Debian's binaries under /usr/lib/postgresql/VERSION/bin, run as the `postgres` OS
 * user when we are root (PostgreSQL refuses to run as root).
 */

const run = promisify(execFile);
const PACKAGE_ROOT = '/usr/lib/postgresql';
const OS_USER = 'postgres';

/** The newest installed PostgreSQL's bin folder, or undefined. */
function postgresBin(): string | undefined {
  if (!existsSync(PACKAGE_ROOT)) return undefined;
  const versions = readdirSync(PACKAGE_ROOT)
    .filter((name) => existsSync(path.join(PACKAGE_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : path.join(PACKAGE_ROOT, newest, 'bin');
}

const runningAsRoot = () => process.getuid?.() === 0;

/** The `postgres` OS user's uid and gid, or undefined when there is none. */
function osUserIds(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', OS_USER], { encoding: 'utf8', stdio: 'pipe' }).trim());
    const gid = Number(execFileSync('id', ['-g', OS_USER], { encoding: 'utf8', stdio: 'pipe' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * Why a private cluster cannot be started here (printed as the skip reason), or undefined.
 * Under MEAL_EXPORT_TEST_REQUIRE_SERVICES=1 a missing PostgreSQL fails instead: .ci/run
 * installs Debian's postgresql, which brings both initdb and the `postgres` user.
 */
export function privatePostgresSkipReason(): string | undefined {
  if (postgresBin() === undefined) {
    return skipUnlessRequired(`no initdb under ${PACKAGE_ROOT}/*/bin: install Debian's postgresql package`);
  }
  if (runningAsRoot() && osUserIds() === undefined) {
    return skipUnlessRequired(`running as root and there is no "${OS_USER}" OS user to run PostgreSQL as`);
  }
  return undefined;
}

export interface PrivatePostgres {
  /** A `postgres://` URL for `database` of this cluster (trust authentication, user postgres). */
  url(database?: string): string;
  /** Lets the cluster's OS user own `dir` (a tablespace's folder); nothing to do when we are not root. */
  own(dir: string): void;
  /** The server's log so far: what it said about a failure. */
  log(): string;
  /** Stops the cluster at once (`-m immediate`: nothing in it is kept) and removes its folder. */
  close(): Promise<void>;
}

/** What a test's cluster has beyond the defaults. */
export interface PrivatePostgresOptions {
  /** Lines added to postgresql.conf (`ssl = on`, …). */
  readonly settings?: readonly string[];
  /** Files written into the data folder, readable by the server alone (a TLS key must be). */
  readonly files?: Readonly<Record<string, string>>;
  /** pg_hba.conf's lines, in place of initdb's (trust for every local and host connection). */
  readonly hba?: readonly string[];
  /** listen_addresses: 127.0.0.1 unless given. */
  readonly listen?: string;
}

/**
 * initdb and `pg_ctl -w start` a cluster in a fresh temporary folder, listening on a free
 * port of 127.0.0.1 and on a socket in that folder. fsync is off: nothing in it has to
 * survive a crash of the machine, and it keeps the test fast. The caller must `close()` it.
 */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error(`no initdb under ${PACKAGE_ROOT}/*/bin`);
  const ids = runningAsRoot() ? osUserIds() : undefined;
  if (runningAsRoot() && ids === undefined) throw new Error(`no "${OS_USER}" OS user to run PostgreSQL as`);
  const own = (dir: string) => {
    if (ids !== undefined) chownSync(dir, ids.uid, ids.gid);
  };
  const asServerUser = (tool: string, args: string[]) =>
    ids === undefined
      ? run(path.join(bin, tool), args)
      : run('runuser', ['-u', OS_USER, '--', path.join(bin, tool), ...args]);

  const temp = makeTempDir('pg');
  own(temp.dir);
  const data = path.join(temp.dir, 'data');
  const logFile = path.join(temp.dir, 'server.log');
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const port = await freePort();
  const stop = () => asServerUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  try {
    await asServerUser('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '-N']);
    appendFileSync(
      path.join(data, 'postgresql.conf'),
      [
        `port = ${port}`,
        `listen_addresses = '${options.listen ?? '127.0.0.1'}'`,
        `unix_socket_directories = '${temp.dir}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        ...(options.settings ?? []),
        '',
      ].join('\n'),
    );
    for (const [name, text] of Object.entries(options.files ?? {})) {
      const file = path.join(data, name);
      writeFileSync(file, text, { mode: 0o600 });
      own(file);
    }
    if (options.hba !== undefined) writeFileSync(path.join(data, 'pg_hba.conf'), `${options.hba.join('\n')}\n`);
    await asServerUser('pg_ctl', ['-D', data, '-l', logFile, '-t', '30', '-w', 'start']);
  } catch (error) {
    await stop().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    const said = log();
    temp.remove();
    throw new Error(`cannot start a private PostgreSQL: ${reason}\n${said}`, { cause: error });
  }
  return {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    own,
    log,
    async close() {
      try {
        await stop();
      } finally {
        temp.remove();
      }
    },
  };
}
