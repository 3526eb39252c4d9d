import path from 'node:path';
import type { Dataset } from './datasets.js';
import { DATA_DIR } from './datasets.js';
import { type FetchedResponse, getJson, httpsGet } from './https-get.js';
import { type LoadResult, type LoadSpec, measureLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { runMealExport, type ServerProcess } from './processes.js';
import type { ScenarioRow } from './results.js';
import { type Certificate, startCeilingServer } from './servers.js';

/** Everything a scenario needs: options, datasets, the running real server, keys, helpers. */
export interface BenchContext {
  readonly options: BenchOptions;
  readonly big: Dataset;
  readonly small: Dataset;
  /** The real server on the big database, up for the whole run. */
  readonly real: ServerProcess;
  readonly certificate: Certificate;
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
   * The request on the real server, then the same bytes from a ceiling server started for
   * it, under the same load.
   */
  againstCeiling(
    pathAndQuery: string,
    key: string,
    overrides?: Partial<LoadSpec>,
  ): Promise<{ real: LoadResult; ceiling: LoadResult; response: FetchedResponse }>;
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

interface ContextParts {
  readonly options: BenchOptions;
  readonly big: Dataset;
  readonly small: Dataset;
  readonly real: ServerProcess;
  readonly certificate: Certificate;
  readonly log: (line: string) => void;
  /** Key ids to revoke, by database, when the run ends. */
  readonly createdKeys: Array<{ db: string; id: string }>;
}

export function createContext(parts: ContextParts): BenchContext {
  const { options, certificate } = parts;
  const rows: ScenarioRow[] = [];

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
      server.pid,
    );

  return {
    ...parts,
    rows,
    async createKey(db, userId) {
      // Expiring keys never pile up to the 10-active-key cap, even if a run is killed.
      const out = await runMealExport([
        'keys',
        'create',
        '--user',
        userId,
        '--name',
        'bench',
        '--expires-in',
        '2h',
        '--db',
        db,
        '--json',
      ]);
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
    async againstCeiling(pathAndQuery, key, overrides = {}) {
      const response = await fetch(parts.real, pathAndQuery, key);
      const again = await fetch(parts.real, pathAndQuery, key);
      if (!again.body.equals(response.body))
        throw new Error(`${pathAndQuery}: the real server's body changes between requests`);
      const ceiling = await startCeilingServer(response, certificate, path.join(DATA_DIR, 'scratch'));
      try {
        const real = await measure(parts.real, pathAndQuery, key, overrides);
        const bare = await measure(ceiling, pathAndQuery, key, overrides);
        return { real, ceiling: bare, response };
      } finally {
        await ceiling.stop();
      }
    },
  };
}
