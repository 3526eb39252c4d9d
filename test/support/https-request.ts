import https from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import zlib from 'node:zlib';

// Requests to a test server's listeners over TLS, each on a connection of its own, trusting its
// self-signed certificate.

export interface TestResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The body, decompressed, as text. */
  readonly text: string;
  /** The parsed JSON body (undefined when empty or not JSON). */
  readonly json: unknown;
  /** The bytes as they came over the wire. */
  readonly raw: Buffer;
}

/** One HTTPS request on a fresh connection, accepting the server's self-signed certificate. */
export function request(
  server: { host: string; port: number },
  options: {
    method?: string;
    path: string;
    key?: string;
    headers?: Record<string, string>;
    body?: string | Buffer | undefined;
    /** A keep-alive agent to send it on; by default a connection of its own. */
    agent?: https.Agent;
  },
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    const req = https.request(
      {
        host: server.host,
        port: server.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers,
        rejectUnauthorized: false,
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          // A HEAD says how the GET's body would be encoded, and has none.
          const body =
            raw.length === 0
              ? raw
              : encoding === 'gzip'
                ? zlib.gunzipSync(raw)
                : encoding === 'br'
                  ? zlib.brotliDecompressSync(raw)
                  : raw;
          const text = body.toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, raw });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A GET with the key on a connection of its own, trusting the server's self-signed certificate. */
export function keyedGetOptions(
  server: { host: string; port: number },
  key: string,
  path: string,
): https.RequestOptions {
  return {
    host: server.host,
    port: server.port,
    path,
    headers: { authorization: `Bearer ${key}` },
    rejectUnauthorized: false,
    agent: false,
  };
}

/** GET /v1/meals with the query given as an object or a raw string. */
export function getMeals(
  server: { host: string; port: number },
  key: string | undefined,
  query: Record<string, string> | string,
) {
  const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return request(server, { path: `/v1/meals${qs === '' ? '' : `?${qs}`}`, ...(key === undefined ? {} : { key }) });
}

/** Sends raw bytes over TLS and returns what came back until the server closed (or 5 s). */
export function rawTlsRequest(server: { host: string; port: number }, payload: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = tlsConnect({ host: server.host, port: server.port, rejectUnauthorized: false }, () =>
      socket.write(payload),
    );
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, 5_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', done);
    socket.on('close', done);
  });
}
