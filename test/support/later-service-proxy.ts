import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ServedApp } from './server.js';

/**
 * An HTTPS proxy in front of a test server that answers as a later /v1 may
 * (docs/api.md#compatibility): every JSON object of every answer (the page, each meal and
 * tombstone, the key and its limits, an error) gains fields no client of today knows, first
 * and last, and every answer gains headers no client of today knows. The rest, the
 * Meals-Digest and the other headers included, passes on as the server sent it. It serves the
 * server's own certificate, so a client given the server's CA trusts it.
 */
export interface LaterServiceProxy {
  /** `https://127.0.0.1:PORT`: give it to the client instead of the server's. */
  readonly url: string;
  /** How many JSON bodies it extended so far: a test that saw none proved nothing. */
  extended(): number;
  close(): Promise<void>;
}

/** Headers a later /v1 may send; `deprecation`, `sunset` and `link` as RFC 9745 and RFC 8594 write them. */
export const LATER_HEADERS: Readonly<Record<string, string | string[]>> = {
  'meals-revision': '2027-06-01',
  'x-served-by': 'eu-west-2b',
  'meals-note': ['one', 'repeated'],
  deprecation: '@1861920000',
  sunset: 'Sat, 01 Jan 2028 00:00:00 GMT',
  link: '<https://meals.example.com/docs/v2-migration>; rel="deprecation"; type="text/html"',
};

/** The fields added to every object: before the known ones, and after. */
export const LATER_FIRST_FIELD = 'revision';
export const LATER_LAST_FIELD = 'annotations';

function extend(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(extend);
  if (typeof value !== 'object' || value === null) return value;
  const known = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, extend(field)]));
  return {
    [LATER_FIRST_FIELD]: 2,
    ...known,
    [LATER_LAST_FIELD]: { note: 'a field this client does not know', tags: ['a', 'b'], since: null },
  };
}

// Hop-by-hop headers (RFC 9110 section 7.6.1) belong to each connection; the length is the new body's.
const NOT_PASSED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export async function startLaterServiceProxy(server: ServedApp): Promise<LaterServiceProxy> {
  const tls = path.join(server.dir, 'tls');
  const ca = readFileSync(path.join(tls, 'cert.pem'));
  let extended = 0;
  const proxy = https.createServer({ cert: ca, key: readFileSync(path.join(tls, 'key.pem')) }, (request, response) => {
    // Uncompressed from the server, so that the proxy can read and extend the bodies.
    const headers = { ...request.headers, 'accept-encoding': 'identity' };
    const upstream = https.request(
      { host: server.host, port: server.port, method: request.method, path: request.url, headers, ca, agent: false },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          if (body.length > 0 && String(answer.headers['content-type']).startsWith('application/json')) {
            body = Buffer.from(JSON.stringify(extend(JSON.parse(body.toString('utf8')))), 'utf8');
            extended += 1;
          }
          const passed = Object.entries(answer.headers).filter(([name]) => !NOT_PASSED.has(name));
          const length = request.method === 'HEAD' ? answer.headers['content-length'] : String(body.length);
          response.writeHead(answer.statusCode ?? 502, {
            ...Object.fromEntries(passed),
            ...LATER_HEADERS,
            ...(length === undefined ? {} : { 'content-length': length }),
          });
          response.end(body);
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
    extended: () => extended,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
