import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { ResponseInfo } from './errors.js';
import { explainPlainHttpFailure, plainHttpRefusal } from './tls-probe.js';
import { DEFAULT_MAX_RESPONSE_BYTES, type HttpTransport, responseTooLarge } from './transport.js';

const gunzip = promisify(zlib.gunzip);
const brotliDecompress = promisify(zlib.brotliDecompress);

export interface HttpsTransportOptions {
  /**
   * PEM certificate(s) to trust instead of the system's (the server's self-signed cert.pem).
   * Uint8Array rather than Buffer, so that the SDK's types need no @types/node.
   */
  readonly ca?: string | Uint8Array | undefined;
  /**
   * No byte for this long: the request fails (and is retried as a network error). Default
   * 60 s; a long poll gets its hold on top (a request with `wait=120` may be silent 180 s).
   */
  readonly timeoutMs?: number;
  /** The largest body accepted, as received and once decompressed (default DEFAULT_MAX_RESPONSE_BYTES). */
  readonly maxResponseBytes?: number;
}

function decode(body: Buffer, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  // maxOutputLength stops inflating at the cap: a few KB of gzip cannot become gigabytes here.
  const limits = { maxOutputLength: maxBytes };
  const decoded =
    encoding === 'gzip'
      ? gunzip(body, limits)
      : encoding === 'br'
        ? brotliDecompress(body, limits)
        : Promise.resolve(body);
  return decoded.catch((error: unknown) => {
    throw (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' ? responseTooLarge(maxBytes) : error;
  });
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * A reset met on a new TLS connection before its handshake ended, said as Node says it when it
 * sees it there itself: Node words it so only when the reset is read during the handshake, not
 * when it comes on the first write (EPIPE) or as a plain read (ECONNRESET).
 */
function beforeHandshake(error: Error): Error {
  const { code } = error as NodeJS.ErrnoException;
  if (code !== 'ECONNRESET' && code !== 'EPIPE') return error;
  if (/before secure TLS connection/.test(error.message)) return error;
  return Object.assign(
    new Error('Client network socket disconnected before secure TLS connection was established', { cause: error }),
    { code },
  );
}

/**
 * The default transport: node:https (node:http for an http:// base URL behind a TLS proxy) with one
 * kept-alive connection, gzip and brotli (docs/api.md#the-rest-of-the-transport), and the `ca` to
 * trust a self-signed certificate.
 */
export function createHttpsTransport(options: HttpsTransportOptions = {}): HttpTransport {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const tlsAgent = new https.Agent({
    keepAlive: true,
    maxSockets: 1,
    ...(options.ca === undefined ? {} : { ca: typeof options.ca === 'string' ? options.ca : Buffer.from(options.ca) }),
  });
  const plainAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  return {
    get(url, headers, signal, getOptions = {}) {
      const tls = url.protocol === 'https:';
      const send = tls ? https.request : http.request;
      return new Promise<ResponseInfo>((resolve, reject) => {
        const request = send(url, {
          method: 'GET',
          headers: { ...headers, 'accept-encoding': 'gzip, br' },
          agent: tls ? tlsAgent : plainAgent,
          // A held request is silent until a change or its wait ends: only past that is it stuck.
          timeout: timeoutMs + (getOptions.holdMs ?? 0),
          ...(signal === undefined ? {} : { signal }),
        });
        request.on('timeout', () => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
        let secured = false;
        if (tls) request.once('socket', (socket) => socket.once('secureConnect', () => (secured = true)));
        // A hang-up on an http:// URL may be an HTTPS server refusing plain HTTP: checked before it is retried.
        request.on('error', (error) => {
          if (signal?.aborted) reject(error);
          else if (tls && !secured && !request.reusedSocket) reject(beforeHandshake(error));
          else void explainPlainHttpFailure(url, error).then(reject);
        });
        request.on('response', (response) => {
          // Announced over the cap: refused before a byte is read, as the fetch transport does.
          if (Number(response.headers['content-length']) > maxBytes) {
            request.destroy(responseTooLarge(maxBytes));
            return;
          }
          const chunks: Buffer[] = [];
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > maxBytes) request.destroy(responseTooLarge(maxBytes));
            else chunks.push(chunk);
          });
          response.on('error', reject);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            Promise.all([
              decode(Buffer.concat(chunks), response.headers['content-encoding'], maxBytes),
              plainHttpRefusal(url, status),
            ])
              .then(([body, refused]) => {
                if (refused !== undefined) reject(refused);
                else resolve({ status, headers: flatHeaders(response.headers), text: body.toString('utf8') });
              })
              .catch(reject);
          });
        });
        request.end();
      });
    },
    close() {
      tlsAgent.destroy();
      plainAgent.destroy();
    },
  };
}
