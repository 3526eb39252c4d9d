import https from 'node:https';
import { type SecureVersion, connect as tlsConnect } from 'node:tls';

/**
 * Clients the shared harness does not have: a bare TLS handshake (to see which protocol
 * versions the server accepts and which certificate it shows), a request from a chosen local
 * address (the brute-force guard counts per client address), and a parser for the bytes
 * rawTlsRequest returns.
 */
export interface Handshake {
  readonly protocol: string | null;
  readonly fingerprint256: string;
  readonly subjectAltName: string;
}

export function tlsHandshake(
  server: { host: string; port: number },
  version: SecureVersion,
): Promise<{ ok: true; handshake: Handshake } | { ok: false; code: string }> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: server.host,
      port: server.port,
      rejectUnauthorized: false,
      minVersion: version,
      maxVersion: version,
      // OpenSSL 3 will not even offer TLS 1.0/1.1 at its default security level: level 0 makes
      // the client offer them, so that a refusal is the server's.
      ciphers: 'DEFAULT@SECLEVEL=0',
    });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      resolve({
        ok: true,
        handshake: {
          protocol: socket.getProtocol(),
          fingerprint256: cert.fingerprint256,
          subjectAltName: cert.subjectaltname ?? '',
        },
      });
      socket.destroy();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      resolve({ ok: false, code: error.code ?? error.message });
      socket.destroy();
    });
  });
}

export interface SimpleResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: unknown;
}

/** One HTTPS GET from `localAddress` (any 127.x.y.z works on loopback). */
export function requestFrom(
  server: { host: string; port: number },
  localAddress: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<SimpleResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: server.host, port: server.port, path, headers, localAddress, rejectUnauthorized: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Status, lower-cased headers and JSON body of a raw HTTP/1.1 response (as rawTlsRequest returns it). */
export function parseRawResponse(raw: string): SimpleResponse & { readonly text: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const text = end < 0 ? '' : raw.slice(end + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, json, text };
}
