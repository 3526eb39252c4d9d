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
  },
  strict: true,
});
if (values.cert === undefined || values.key === undefined || values.head === undefined || values.body === undefined) {
  process.stderr.write('usage: ceiling-server --cert F --key F --head F --body F\n');
  process.exit(2);
}
const head = JSON.parse(readFileSync(values.head, 'utf8')) as Head;
const body = readFileSync(values.body);

const server = https.createServer(
  { cert: readFileSync(values.cert), key: readFileSync(values.key), minVersion: 'TLSv1.2' },
  (request, response) => {
    // Drain whatever body a request has; GET has none.
    request.resume();
    response.writeHead(head.status, head.headers);
    response.end(request.method === 'HEAD' ? undefined : body);
  },
);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on https://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
