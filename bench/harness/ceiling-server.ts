import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

/**
 * The ceiling: bare node:https on the benchmark's certificate, answering every request with
 * the precomputed bytes (status, headers and body) that the real server sent for the
 * scenario. Nothing is done per request but writing them, so no server on this machine and
 * Node version can do less work for the same response. Run as its own process:
 *   node --import tsx bench/harness/ceiling-server.ts --cert F --key F --head F --body F
 * It prints `listening on https://127.0.0.1:PORT` once ready and exits on SIGTERM.
 * With `--workers N` (N > 1), N processes share the port through node:cluster, as `serve --workers N`
 * does: what N processes cost on this machine with nothing of the service in them.
 */

interface Head {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
}

const { values } = parseArgs({
  options: {
    cert: { type: 'string' },
    key: { type: 'string' },
    head: { type: 'string' },
    body: { type: 'string' },
    workers: { type: 'string', default: '1' },
  },
  strict: true,
});
if (values.cert === undefined || values.key === undefined || values.head === undefined || values.body === undefined) {
  process.stderr.write('usage: ceiling-server --cert F --key F --head F --body F [--workers N]\n');
  process.exit(2);
}
const workers = Number(values.workers);
if (cluster.isPrimary && workers > 1) runPrimary(workers);
else serve(values.cert, values.key, values.head, values.body);

/** Forks the workers, says where they listen once all do, and stops them on SIGTERM. */
function runPrimary(count: number): void {
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    listening += 1;
    if (listening === count) process.stdout.write(`listening on https://127.0.0.1:${address.port}\n`);
  });
  for (let i = 0; i < count; i += 1) cluster.fork();
  process.once('SIGTERM', () => {
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
  });
}

function serve(certFile: string, keyFile: string, headFile: string, bodyFile: string): void {
  const head = JSON.parse(readFileSync(headFile, 'utf8')) as Head;
  const body = readFileSync(bodyFile);

  const server = https.createServer(
    { cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: 'TLSv1.2' },
    (request, response) => {
      // Drain whatever body a request has; GET has none.
      request.resume();
      response.writeHead(head.status, head.headers);
      response.end(request.method === 'HEAD' ? undefined : body);
    },
  );
  server.listen(0, '127.0.0.1', () => {
    if (cluster.isWorker) return; // the primary says it, once every worker listens
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`listening on https://127.0.0.1:${port}\n`);
  });
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
