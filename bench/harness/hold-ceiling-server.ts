import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';

/**
 * The baseline of the held-connections benchmark: bare node:https on the benchmark's
 * certificate, with the TLS and request settings of the service's listener
 * (src/listener/listener.ts), that answers no request: it keeps each response until its client
 * leaves. What it holds per request is what Node and OpenSSL need to keep a TLS connection
 * with a request in flight, with nothing of the service's own. Run as its own process:
 *   node --import tsx bench/harness/hold-ceiling-server.ts --cert F --key F
 * It prints `listening on https://127.0.0.1:PORT` once ready and exits on SIGTERM.
 */

const { values } = parseArgs({ options: { cert: { type: 'string' }, key: { type: 'string' } }, strict: true });
if (values.cert === undefined || values.key === undefined) {
  process.stderr.write('usage: hold-ceiling-server --cert F --key F\n');
  process.exit(2);
}

const held = new Set<ServerResponse>();
const server = https.createServer(
  {
    cert: readFileSync(values.cert, 'utf8'),
    key: readFileSync(values.key, 'utf8'),
    // As src/listener/listener.ts: TLS 1.2 and up, these groups, a 10 s handshake; the same request limits.
    minVersion: 'TLSv1.2',
    ecdhCurve: 'X25519:prime256v1:secp384r1',
    handshakeTimeout: 10_000,
    headersTimeout: 10_000,
    requestTimeout: 30_000,
    connectionsCheckingInterval: 1_000,
  },
  (_request, response) => {
    held.add(response);
    response.once('close', () => held.delete(response));
  },
);
server.maxConnections = 100_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on https://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
