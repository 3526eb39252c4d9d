import { setTimeout as sleep } from 'node:timers/promises';
import { createMealExportClient } from '../src/client/index.js';
import type { HttpTransport } from '../src/client/transport.js';

/** Calls the readers made, and the ones the client gave up on (its retries spent). */
export interface ReaderTally {
  pages: number;
  keyInfos: number;
  gaveUp: number;
  lastError: string | undefined;
}

export interface Readers {
  readonly tally: ReaderTally;
  stop(): Promise<void>;
}

export interface ReaderSpec {
  readonly kind: 'poller' | 'key-info';
  readonly apiKey: string;
  readonly baseUrl: string;
  readonly transport: HttpTransport;
}

const POLL_GAP_MS = 2000;
const KEY_INFO_GAP_MS = 1000;

/**
 * Consumers that do not keep a copy: pollers asking for the last minute's changes every few
 * seconds (paced by the SDK), and callers of `GET /v1/key`, which is free of the limits.
 */
export function startReaders(specs: readonly ReaderSpec[], minIntervalMs: number): Readers {
  const tally: ReaderTally = { pages: 0, keyInfos: 0, gaveUp: 0, lastError: undefined };
  const abort = new AbortController();
  const loops = specs.map(async (spec) => {
    const client = createMealExportClient({
      baseUrl: spec.baseUrl,
      apiKey: spec.apiKey,
      transport: spec.transport,
      minIntervalMs,
    });
    while (!abort.signal.aborted) {
      try {
        if (spec.kind === 'poller') {
          await client.listMeals({
            lastModifiedSince: new Date(Date.now() - 60_000),
            limit: 100,
            signal: abort.signal,
          });
          tally.pages += 1;
        } else {
          await client.keyInfo({ signal: abort.signal });
          tally.keyInfos += 1;
        }
      } catch (error) {
        if (abort.signal.aborted) break;
        tally.gaveUp += 1;
        tally.lastError = error instanceof Error ? error.message : String(error);
      }
      await sleep(spec.kind === 'poller' ? POLL_GAP_MS : KEY_INFO_GAP_MS, undefined, { signal: abort.signal }).catch(
        () => undefined,
      );
    }
    client.close();
  });
  return {
    tally,
    async stop() {
      abort.abort();
      await Promise.all(loops);
    },
  };
}
