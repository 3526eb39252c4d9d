import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ServedApp } from './server.js';

/** One answer of the test server, as the proxy is about to pass it on. */
export interface ProxiedAnswer {
  /** The request's query (lastModifiedSince, includeDeleted, cursor…). */
  readonly query: URLSearchParams;
  readonly status: number;
  /** The meals of a 200 page (none for any other answer). */
  readonly meals: readonly { readonly id: string; readonly deleted?: boolean }[];
}

/**
 * An HTTPS proxy in front of a test server that sees every answer to a client it cannot
 * instrument otherwise (`meal-export pull`, a child process): it counts the items the client
 * downloads, and lets a test act before an answer goes on (write to the store between two
 * pages of a sync, say). It serves the server's own certificate, so a client given the
 * server's CA (`--ca`) trusts it, and passes every answer on byte for byte, headers included.
 */
export interface MealsProxy {
  /** `https://127.0.0.1:PORT`: give it to the client instead of the server's. */
  readonly url: string;
  /** The answers passed on so far, in order. */
  readonly answers: readonly ProxiedAnswer[];
  /** The items (meals and tombstones) of every page passed on so far. */
  items(): number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 section 7.6.1) belong to each connection, not to the answer.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

export async function startMealsProxy(
  server: ServedApp,
  beforeAnswer: (answer: ProxiedAnswer) => Promise<void> = async () => undefined,
): Promise<MealsProxy> {
  const tls = path.join(server.dir, 'tls');
  const ca = readFileSync(path.join(tls, 'cert.pem'));
  const answers: ProxiedAnswer[] = [];
  const proxy = https.createServer({ cert: ca, key: readFileSync(path.join(tls, 'key.pem')) }, (request, response) => {
    // Uncompressed from the server, so that the proxy can read the pages it counts.
    const headers = { ...request.headers, 'accept-encoding': 'identity' };
    const upstream = https.request(
      { host: server.host, port: server.port, method: request.method, path: request.url, headers, ca, agent: false },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          const url = new URL(request.url ?? '/', 'https://proxy');
          const page =
            answer.statusCode === 200 && body.length > 0 ? (JSON.parse(body.toString('utf8')) as unknown) : {};
          const meals = (page as { meals?: ProxiedAnswer['meals'] }).meals ?? [];
          const seen: ProxiedAnswer = { query: url.searchParams, status: answer.statusCode ?? 0, meals };
          answers.push(seen);
          void beforeAnswer(seen).then(
            () => {
              const passed = Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name));
              response.writeHead(answer.statusCode ?? 502, Object.fromEntries(passed));
              response.end(body);
            },
            (error: unknown) => {
              response.writeHead(599, { 'content-type': 'text/plain' });
              response.end(`the test's beforeAnswer failed: ${String(error)}`);
            },
          );
        });
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    answers,
    items: () => answers.reduce((sum, answer) => sum + answer.meals.length, 0),
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
