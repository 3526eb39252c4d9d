/**
 * One webhook call (docs/webhooks.md#the-call): a signed `POST` over HTTPS to checked addresses only,
 * judged by its status within the time limit. The dispatcher decides what an outcome means for the
 * event (`isDelivered`; anything else is retried, and a 410 disables the endpoint).
 *
 * `agent: false`, a connection per call: each call must resolve the host anew and connect only to the
 * address it checked, which a pooled socket from an earlier call would not; calls to one endpoint are
 * seconds to hours apart, so a pool would save nothing.
 */
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { classifyLiteralHost, createCheckingLookup, RefusedAddressError } from './webhook-address.js';
import { signWebhook } from './webhook-signature.js';
import { parsedUrl } from '../domain/parsed-url.js';

/** Why a call got no usable answer; short, stable, shown in the attempt log. */
export type WebhookError =
  /** Not an `https://` URL without credentials (registration refuses those; a stored one is a bug). */
  | 'invalid_url'
  /** The host is, or resolves to, an address calls may not go to; nothing was sent. */
  | 'refused_address'
  | 'dns'
  | 'connection'
  /** The handshake failed: an untrusted or expired certificate, a name mismatch, not TLS at all. */
  | 'tls'
  /** No complete answer within the time limit (connect, status and the body read). */
  | 'timeout'
  /** The sender was closed while the call was under way: not the receiver's doing. */
  | 'aborted';

export interface WebhookAttemptOutcome {
  /** The HTTP status, when one arrived (a redirect is a status like any other: not followed). */
  readonly status: number | null;
  readonly error: WebhookError | null;
  /** For the log: the system or TLS error code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT) or the refused range. */
  readonly detail: string | null;
  /** From the start of the call to its outcome, in whole milliseconds. */
  readonly ms: number;
}

export interface WebhookCall {
  readonly url: string;
  readonly webhookId: string;
  readonly timestampS: number;
  /** The JSON body, sent and signed as these exact bytes. */
  readonly body: string;
  /** Every live secret of the endpoint; the call is signed with each. */
  readonly secrets: readonly string[];
}

export interface WebhookSenderOptions {
  /** `--webhook-allow-private`: loopback and private addresses allowed too (tests, a single host). */
  readonly allowPrivate: boolean;
  /** `--webhook-ca`: PEM certificate(s) trusted in addition to the default trust store. */
  readonly ca?: string | Buffer | undefined;
  readonly userAgent: string;
  readonly timeoutMs?: number | undefined;
  readonly maxBodyBytes?: number | undefined;
}

export interface WebhookSender {
  /** Never rejects for the receiver's doing; rejects with a TypeError for a malformed secret. */
  send(call: WebhookCall): Promise<WebhookAttemptOutcome>;
  /** Aborts the calls under way (they resolve with `aborted`); later calls resolve so at once. */
  close(): void;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_MAX_BODY_BYTES = 64 * 1024;

/** A 2xx with no error: the event is delivered. */
export function isDelivered(outcome: WebhookAttemptOutcome): boolean {
  return outcome.error === null && outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
]);

function classify(error: unknown, secured: boolean): { error: WebhookError; detail: string } {
  if (error instanceof RefusedAddressError) return { error: 'refused_address', detail: error.range };
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  const detail = typeof code === 'string' ? code : error instanceof Error ? error.message : 'unknown';
  if (syscall === 'getaddrinfo' || detail === 'ENOTFOUND') return { error: 'dns', detail };
  if (detail.startsWith('ERR_TLS_') || detail.startsWith('ERR_SSL_')) return { error: 'tls', detail };
  if (CONNECTION_CODES.has(detail)) return { error: 'connection', detail };
  // Anything else before the handshake completed is the handshake's: OpenSSL's verify codes
  // (CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE ...) and EPROTO.
  return { error: secured ? 'connection' : 'tls', detail };
}

/** Node's `ca` replaces the default trust store: the extra CA goes beside the defaults, not instead. */
function trustedWith(extra: string | Buffer): Array<string | Buffer> {
  // Node 22.15 and newer: the defaults as Node uses them (bundled, NODE_EXTRA_CA_CERTS, --use-system-ca).
  const getCACertificates = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  return [...(getCACertificates?.('default') ?? tls.rootCertificates), extra];
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? WEBHOOK_MAX_BODY_BYTES;
  // Built once: a `ca` given per call made Node build a TLS context from every default root on
  // each call (~50 ms of CPU, measured by bench/scenarios/webhook-*.ts).
  const secureContext = options.ca === undefined ? undefined : tls.createSecureContext({ ca: trustedWith(options.ca) });
  const policy = { allowPrivate: options.allowPrivate };
  const lookup = createCheckingLookup(policy);
  const underWay = new Set<() => void>();
  let closed = false;

  async function send(call: WebhookCall): Promise<WebhookAttemptOutcome> {
    const started = performance.now();
    const outcome = (status: number | null, error: WebhookError | null, detail: string | null) => ({
      status,
      error,
      detail,
      ms: Math.round(performance.now() - started),
    });
    const signature = signWebhook(call.secrets, call.webhookId, call.timestampS, call.body);
    if (closed) return outcome(null, 'aborted', null);
    const url = parsedUrl(call.url);
    if (url === undefined) return outcome(null, 'invalid_url', 'not a URL');
    if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') {
      return outcome(null, 'invalid_url', 'not an https:// URL without credentials');
    }
    const verdict = classifyLiteralHost(url, policy);
    if (verdict !== null && !verdict.allowed) return outcome(null, 'refused_address', verdict.range);

    return new Promise<WebhookAttemptOutcome>((resolve) => {
      let status: number | null = null;
      let secured = false;
      // Throws, so rejects, before anything is under way for a header value Node refuses (a newline in the id).
      const request = https.request(url, {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(call.body),
          'user-agent': options.userAgent,
          'webhook-id': call.webhookId,
          'webhook-timestamp': String(call.timestampS),
          'webhook-signature': signature,
        },
        lookup,
        ...(secureContext === undefined ? {} : { secureContext }),
      });
      const settle = (error: WebhookError | null, detail: string | null) => {
        if (!underWay.delete(abort)) return;
        clearTimeout(timer);
        resolve(outcome(status, error, detail));
        request.destroy();
      };
      const fail = (cause: unknown) => {
        const { error, detail } = classify(cause, secured);
        settle(error, detail);
      };
      const abort = () => settle('aborted', null);
      const timer = setTimeout(() => settle('timeout', null), timeoutMs);
      underWay.add(abort);

      request.on('socket', (socket) => socket.once('secureConnect', () => (secured = true)));
      request.on('error', fail);
      request.on('response', (response) => {
        status = response.statusCode ?? null;
        // The body is read, up to the cap, and ignored; past the cap the connection is dropped.
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= maxBodyBytes) settle(null, null);
        });
        response.on('end', () => settle(null, null));
        response.on('error', fail);
        response.on('close', () => (response.complete ? settle(null, null) : settle('connection', 'ECONNRESET')));
      });
      request.end(call.body);
    });
  }

  return {
    send,
    close() {
      closed = true;
      for (const abort of [...underWay]) abort();
    },
  };
}
