import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeCertificate, startReceiver } from '../../test/webhooks/receiver.js';
import { DATA_DIR } from './datasets.js';
import { wallClock } from './writer-process.js';

/**
 * The webhook benchmark's receiver: the tests' local HTTPS server (test/webhooks/receiver.ts)
 * on 127.0.0.1, port 0, with a certificate made in this run, answering 204 at once. It notes
 * when each call arrived whole (`wallClock()`, the writer's clock: writer-process.ts) under the
 * `data.userId` of its body, so a sample waits for the call of its own user.
 */
export interface BenchReceiver {
  /** `https://127.0.0.1:<port>/hook`: the URL the endpoints are registered with. */
  readonly url: string;
  /** The certificate as a file, for `serve --webhook-ca FILE`. */
  readonly caFile: string;
  /** `serve`'s flags for calls to this receiver. */
  readonly serveArgs: readonly string[];
  /** Calls received so far. */
  received(): number;
  /** When the first call of `userId` arrived; rejects after `timeoutMs`. */
  arrival(userId: string, timeoutMs?: number): Promise<number>;
  /** Resolves with the arrival of the `count`-th call (counted from the receiver's start). */
  callsReached(count: number, timeoutMs: number): Promise<number>;
  /** Called with each call's arrival time (the throughput scenario samples CPU there). */
  onCall(listener: (at: number) => void): void;
  close(): Promise<void>;
}

interface CallBody {
  readonly data?: { readonly userId?: string };
}

export async function startBenchReceiver(name: string): Promise<BenchReceiver> {
  const certificate = await makeCertificate();
  const folder = path.join(DATA_DIR, 'scratch');
  mkdirSync(folder, { recursive: true });
  const caFile = path.join(folder, `${name}-receiver-ca.pem`);
  writeFileSync(caFile, certificate.cert);

  const arrivals = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const listeners: Array<(at: number) => void> = [];
  let count = 0;
  const receiver = await startReceiver(certificate, (response, call) => {
    const at = wallClock();
    response.writeHead(204).end();
    count += 1;
    const userId = (JSON.parse(call.body) as CallBody).data?.userId ?? '';
    if (!arrivals.has(userId)) arrivals.set(userId, at);
    waiting.get(userId)?.(at);
    waiting.delete(userId);
    for (const listener of listeners) listener(at);
  });
  // The tests' receiver keeps every call; the benchmark needs only the arrivals.
  const keep = setInterval(() => receiver.calls.splice(0), 1000);

  return {
    url: receiver.url,
    caFile,
    serveArgs: ['--webhook-allow-private', '--webhook-ca', caFile],
    received: () => count,
    arrival(userId, timeoutMs = 15_000) {
      const known = arrivals.get(userId);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(userId);
          reject(new Error(`no webhook call for ${userId} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(userId, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    callsReached(target, timeoutMs) {
      return new Promise((resolve, reject) => {
        if (count >= target) {
          resolve(wallClock());
          return;
        }
        const timer = setTimeout(
          () => reject(new Error(`${count} of ${target} webhook calls within ${timeoutMs} ms`)),
          timeoutMs,
        );
        listeners.push((at) => {
          if (count !== target) return;
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    onCall(listener) {
      listeners.push(listener);
    },
    async close() {
      clearInterval(keep);
      await receiver.close();
      rmSync(caFile, { force: true });
    },
  };
}
