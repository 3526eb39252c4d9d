import { isIP } from 'node:net';
import { connect } from 'node:tls';
import { SPEAKS_HTTPS } from './network-failure.js';

/** How long the probe waits for a TLS handshake: a local or nearby server answers in milliseconds. */
const PROBE_TIMEOUT_MS = 2000;

// What an HTTP client sees when the server hangs up on its plain request (node:http, undici)
// or answers it with TLS bytes (the HTTP parser's complaint).
const HUNG_UP_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function codeOf(error: unknown): string | undefined {
  const outer = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = outer?.code ?? outer?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Resolves whether `host:port` completes a TLS handshake (its certificate is not checked: only its language). */
function speaksTls(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const socket = connect({
      host: hostname,
      port: Number(url.port || 80),
      rejectUnauthorized: false,
      ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
    });
    const settle = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => settle(false));
    socket.once('secureConnect', () => settle(true));
    socket.once('error', () => settle(false));
  });
}

/**
 * A plain-HTTP request to `url` failed with `error`: when the server hung up or answered
 * something that is not HTTP, and speaks TLS on that port, the URL's scheme is wrong. Returns
 * the error to throw: a SPEAKS_HTTPS one then (never retried), `error` itself otherwise.
 */
export async function explainPlainHttpFailure(url: URL, error: unknown): Promise<unknown> {
  const code = codeOf(error);
  if (url.protocol !== 'http:' || code === undefined) return error;
  if (!HUNG_UP_CODES.has(code) && !code.startsWith('HPE_')) return error;
  if (!(await speaksTls(url))) return error;
  const message = `${url.origin} completed a TLS handshake: the server speaks HTTPS, the URL says http://`;
  return Object.assign(new Error(message, { cause: error }), { code: SPEAKS_HTTPS });
}

/**
 * A 400 to an http:// URL may be an HTTPS server answering plain HTTP as nginx and this
 * service do (a 400 in plain HTTP, then close): the same mismatch as a hang-up, so the same
 * error, told apart from a real 400 by a TLS handshake on that port. Undefined otherwise.
 */
export async function plainHttpRefusal(url: URL, status: number): Promise<Error | undefined> {
  if (url.protocol !== 'http:' || status !== 400 || !(await speaksTls(url))) return undefined;
  const message = `${url.origin} completed a TLS handshake: the server speaks HTTPS, the URL says http://`;
  return Object.assign(new Error(message), { code: SPEAKS_HTTPS });
}
