/**
 * What a failed request without an answer means, in words, and whether asking again may help.
 * One table from the system, TLS and undici error codes to a `NetworkProblem`; pure functions.
 */

/** Why no answer came; the discriminant of MealExportNetworkError. */
export type NetworkProblem =
  | 'connection_refused'
  | 'host_not_found'
  /** A DNS lookup that failed for now (EAI_AGAIN): the resolver may answer next time. */
  | 'dns_unavailable'
  | 'unreachable'
  | 'connection_reset'
  | 'timed_out'
  | 'certificate'
  /** The URL says http:// and the server speaks HTTPS on that port. */
  | 'speaks_https'
  /** The URL says https:// and the server answers in plain HTTP. */
  | 'speaks_plain_http'
  | 'response_too_large'
  | 'other';

/** The code a transport fails with when an http:// URL reaches a server that speaks HTTPS. */
export const SPEAKS_HTTPS = 'ERR_SERVER_SPEAKS_HTTPS';

/** Not importable from transport.ts here without a cycle; the same value. */
const RESPONSE_TOO_LARGE = 'ERR_RESPONSE_TOO_LARGE';

export interface NetworkFailure {
  readonly problem: NetworkProblem;
  /** The system, TLS or undici code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT ...), when known. */
  readonly code: string | undefined;
  /** The message, naming where: `cannot connect to https://127.0.0.1:9999: connection refused`. */
  readonly text: string;
  /** Whether the same request may pass later (a refused connection may: the server may be starting). */
  readonly retryable: boolean;
}

// A certificate the client does not trust will not become trusted by asking again.
const TLS_TRUST_RE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;
// OpenSSL reading an HTTP answer as a TLS record.
const PLAIN_ANSWER_RE = /wrong version number|packet length too long|unknown protocol|http request/i;

interface CodedError {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
}

/** The code of an error, or of its cause (fetch throws `TypeError('fetch failed')` with the system error as cause). */
function codeAndMessage(error: unknown): { code: string | undefined; message: string } {
  const outer = (error ?? {}) as CodedError;
  const inner = (outer.cause ?? {}) as CodedError;
  const code = typeof outer.code === 'string' ? outer.code : typeof inner.code === 'string' ? inner.code : undefined;
  const message = [outer.message, inner.message].filter((m) => typeof m === 'string').join(': ');
  return { code, message: message === '' ? String(error) : message };
}

/** The problem, its words, whether it may pass later, and what to do about it. */
type Entry = readonly [NetworkProblem, string, boolean, string?];

function classify(code: string | undefined, message: string): Entry {
  if (code === SPEAKS_HTTPS) return ['speaks_https', 'it speaks HTTPS', false];
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || (code === 'EPROTO' && PLAIN_ANSWER_RE.test(message))) {
    return ['speaks_plain_http', 'it answers in plain HTTP', false];
  }
  if (code === RESPONSE_TOO_LARGE) {
    return ['response_too_large', 'the response is too large', false, 'ask for smaller pages (limit)'];
  }
  if (code === 'CERT_HAS_EXPIRED') return ['certificate', `the server's certificate has expired (${code})`, false];
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return ['certificate', `the server's certificate is not for this host name (${code})`, false];
  }
  if (code !== undefined && TLS_TRUST_RE.test(code)) {
    return [
      'certificate',
      `the server's certificate is not trusted (${code})`,
      false,
      'pass its cert.pem as ca (--ca)',
    ];
  }
  switch (code) {
    case 'ECONNREFUSED':
      return ['connection_refused', 'connection refused', true];
    // NXDOMAIN: a name that does not exist will not exist a few seconds later (a typo, usually).
    case 'ENOTFOUND':
      return ['host_not_found', 'host not found', false];
    case 'EAI_AGAIN':
      return ['dns_unavailable', 'host not found (DNS lookup failed for now)', true];
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return ['unreachable', 'host unreachable', true];
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return /before secure TLS connection/.test(message)
        ? ['connection_reset', 'connection closed before the TLS handshake', true]
        : ['connection_reset', 'connection reset', true];
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return ['timed_out', 'timed out', true];
    default:
      return ['other', code ?? message, true];
  }
}

const CONNECT_PROBLEMS: ReadonlySet<NetworkProblem> = new Set([
  'connection_refused',
  'host_not_found',
  'dns_unavailable',
  'unreachable',
  'certificate',
]);

/** `error` (what the transport threw) for a request to `url`, in words that name where. */
export function describeNetworkFailure(url: string, error: unknown): NetworkFailure {
  const { code, message } = codeAndMessage(error);
  const [problem, reason, retryable, hint] = classify(code, message);
  const target = new URL(url);
  const where = target.origin;
  let text: string;
  if (problem === 'speaks_https') {
    text = `${target.host} speaks HTTPS but the URL says http://: use https://${target.host}`;
  } else if (problem === 'speaks_plain_http') {
    text = `${target.host} speaks plain HTTP but the URL says https://: a wrong port, or a plain-HTTP server (then http://${target.host})`;
  } else if (problem === 'response_too_large') {
    text = `${reason} (from ${where})`;
  } else if (CONNECT_PROBLEMS.has(problem)) {
    text = `cannot connect to ${where}: ${reason}`;
  } else {
    text = `no answer from ${where}: ${reason}`;
  }
  if (hint !== undefined) text += `: ${hint}`;
  return { problem, code, text, retryable };
}
