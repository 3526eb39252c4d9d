import path from 'node:path';
import type { Dataset } from './datasets.js';
import { DATA_DIR } from './datasets.js';
import type { Deployment } from './deployment.js';
import { type FetchedResponse, getJson, httpsGet } from './https-get.js';
import { type LoadResult, type LoadSpec, measureLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { runMealExport, type ServerProcess } from './processes.js';
import type { ScenarioRow } from './results.js';
import { type ScaleOutStart, startScaleOut } from './scale-out.js';
import { type Certificate, startCeilingServer } from './servers.js';

/** Everything a scenario needs: options, datasets, the running real server, keys, helpers. */
export interface BenchContext {
  readonly options: BenchOptions;
  readonly big: Dataset;
  readonly small: Dataset;
  /** The real server on the big database, up for the whole run. */
  readonly real: ServerProcess;
  /** The embedded default: the real server on the big SQLite database. */
  readonly embedded: Deployment;
  readonly certificate: Certificate;
  /**
   * The PostgreSQL + Redis deployment, made (seeded, served) on first use and kept until
   * closeScaleOut(); or why it cannot run here.
   */
  scaleOut(): Promise<ScaleOutStart>;
  closeScaleOut(): Promise<void>;
  /** The keys made in `db` need no revoking: a scenario dropped that database. */
  forgetKeys(db: string): void;
  /** Rows of the scenarios that ran before (fixed-rate reads page-100's). */
  readonly rows: ScenarioRow[];
  log(line: string): void;
  /** A key for `userId` in `db` (revoked when the run ends). */
  createKey(db: string, userId: string): Promise<string>;
  /** GET on a server with a key; must answer 200. */
  fetch(server: ServerProcess, pathAndQuery: string, key: string): Promise<FetchedResponse>;
  fetchJson<T>(server: ServerProcess, pathAndQuery: string, key: string): Promise<T>;
  /** Warm-up, then a measured load of one request on one server. */
  measure(server: ServerProcess, pathAndQuery: string, key: string, overrides?: Partial<LoadSpec>): Promise<LoadResult>;
  /**
   * The request on a server (the real one unless said), then the same bytes from a ceiling
   * server started for it, under the same load.
   */
  againstCeiling(
    pathAndQuery: string,
    key: string,
    overrides?: Partial<LoadSpec>,
    server?: ServerProcess,
  ): Promise<{ real: LoadResult; ceiling: LoadResult; response: FetchedResponse }>;
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

interface ContextParts {
  readonly options: BenchOptions;
  /** Undefined in a run of standalone scenarios only (scenario.ts): none of them reads these. */
  readonly big: Dataset | undefined;
  readonly small: Dataset | undefined;
  readonly real: ServerProcess | undefined;
  readonly certificate: Certificate;
  readonly log: (line: string) => void;
  /** Key ids to revoke, by database, when the run ends. */
  readonly createdKeys: Array<{ db: string; id: string }>;
}

function prepared<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not prepared in a run of standalone scenarios only`);
  return value;
}

export function createContext(parts: ContextParts): BenchContext {
  const { options, certificate } = parts;
  const rows: ScenarioRow[] = [];
  const big = () => prepared(parts.big, 'the big database');
  const real = () => prepared(parts.real, 'the real server');

  const fetch = async (server: ServerProcess, pathAndQuery: string, key: string) => {
    const response = await httpsGet(`${server.url}${pathAndQuery}`, certificate.ca, bearer(key));
    if (response.status !== 200) {
      throw new Error(`GET ${pathAndQuery} on ${server.name}: ${response.status} ${response.body.toString()}`);
    }
    return response;
  };

  const measure = (server: ServerProcess, pathAndQuery: string, key: string, overrides: Partial<LoadSpec> = {}) =>
    measureLoad(
      {
        url: `${server.url}${pathAndQuery}`,
        headers: bearer(key),
        connections: options.connections,
        warmupSeconds: options.warmupSeconds,
        seconds: options.measureSeconds,
        ...overrides,
      },
      server.probes ?? { pids: () => [server.pid] },
    );

  const forgetKeys = (db: string) => {
    for (let i = parts.createdKeys.length - 1; i >= 0; i -= 1) {
      if (parts.createdKeys[i]?.db === db) parts.createdKeys.splice(i, 1);
    }
  };
  let scaleOut: Promise<ScaleOutStart> | undefined;
  return {
    options,
    certificate,
    log: parts.log,
    get big() {
      return big();
    },
    get small() {
      return prepared(parts.small, 'the small database');
    },
    get real() {
      return real();
    },
    get embedded() {
      return { rowPrefix: '', label: 'SQLite', db: big().db, server: real(), shape: big().shape };
    },
    rows,
    scaleOut() {
      scaleOut ??= startScaleOut(options, parts.log);
      return scaleOut;
    },
    async closeScaleOut() {
      const started = await scaleOut?.catch(() => undefined);
      if (started?.ok !== true) return;
      await started.scaleOut.stop();
      // Its database is gone with its keys: nothing to revoke there.
      forgetKeys(started.scaleOut.db);
    },
    forgetKeys,
    async createKey(db, userId) {
      // Expiring keys never pile up to the 10-active-key cap, even if a run is killed.
      const out = await runMealExport(
        ['keys', 'create', '--user', userId, '--name', 'bench', '--expires-in', '2h', '--json'],
        db,
      );
      const created = JSON.parse(out) as { id: string; key: string };
      parts.createdKeys.push({ db, id: created.id });
      return created.key;
    },
    fetch,
    async fetchJson<T>(server: ServerProcess, pathAndQuery: string, key: string) {
      const { json } = await getJson<T>(`${server.url}${pathAndQuery}`, certificate.ca, bearer(key));
      return json;
    },
    measure,
    async againstCeiling(pathAndQuery, key, overrides = {}, server = real()) {
      const response = await fetch(server, pathAndQuery, key);
      const again = await fetch(server, pathAndQuery, key);
      if (!again.body.equals(response.body))
        throw new Error(`${pathAndQuery}: the real server's body changes between requests`);
      const ceiling = await startCeilingServer(response, certificate, path.join(DATA_DIR, 'scratch'));
      try {
        const real = await measure(server, pathAndQuery, key, overrides);
        const bare = await measure(ceiling, pathAndQuery, key, overrides);
        return { real, ceiling: bare, response };
      } finally {
        await ceiling.stop();
      }
    },
  };
}
