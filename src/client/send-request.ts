import {
  httpErrorFor,
  MealExportNetworkError,
  MealExportRateLimitError,
  type RequestInfo,
  type ResponseInfo,
} from './errors.js';
import type { NetworkProblem } from './network-failure.js';
import type { Pacer, Waiter } from './pacer.js';
import type { HttpTransport } from './transport.js';
import { type BackoffOptions, backoffDelay, parseRetryAfter } from './wait-times.js';

export interface RequestPolicy {
  readonly transport: HttpTransport;
  readonly apiKey: string;
  readonly pacer: Pacer;
  readonly wait: Waiter;
  /** Retries of a 5xx or a network error in a row before giving up. */
  readonly maxRetries: number;
  readonly backoff: BackoffOptions;
  /** A 429 asking to wait longer than this is thrown (MealExportRateLimitError), not waited out. */
  readonly maxRetryAfterMs: number;
}

export interface JsonResponse {
  readonly response: ResponseInfo;
  /** The parsed body; undefined when it was not JSON. */
  readonly body: unknown;
}

/** The failures after which the request may have been received: no connection was refused or unmade. */
const MAY_HAVE_ARRIVED: ReadonlySet<NetworkProblem> = new Set([
  'connection_reset',
  'timed_out',
  'response_too_large',
  'other',
]);

function parseBody(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface SendOptions {
  readonly signal?: AbortSignal | undefined;
  /** A long poll: the server may hold the request this long before answering (`wait`, in ms). */
  readonly holdMs?: number | undefined;
}

/**
 * One GET with the whole policy: the interval before it, Retry-After on 429, capped
 * exponential backoff with full jitter on 5xx and network errors that may pass (each retry told
 * to `wait`'s listener, even one without a delay), typed errors for the rest.
 */
export async function sendRequest(policy: RequestPolicy, url: URL, options: SendOptions = {}): Promise<JsonResponse> {
  const { signal, holdMs } = options;
  const info: RequestInfo = { method: 'GET', url: url.href };
  const headers = { authorization: `Bearer ${policy.apiKey}`, accept: 'application/json' };
  const transportOptions = holdMs === undefined ? {} : { holdMs };
  let failures = 0;
  for (;;) {
    const sentAt = await policy.pacer.ready(signal);
    let response: ResponseInfo;
    try {
      response = await policy.transport.get(url, headers, signal, transportOptions);
    } catch (error) {
      const failure = new MealExportNetworkError(info, error);
      // An aborted request, or one whose connection broke after it was made, may have reached
      // the server, which counts a request as it arrives.
      if (signal?.aborted || MAY_HAVE_ARRIVED.has(failure.problem)) policy.pacer.noteUnanswered(sentAt);
      if (signal?.aborted) throw error;
      failures += 1;
      // What will never pass (a certificate, a wrong scheme, an unknown host) is thrown at once.
      if (!failure.retryable) throw failure;
      if (failures > policy.maxRetries) throw new MealExportNetworkError(info, error, '', { attempts: failures });
      const ms = backoffDelay(failures, policy.backoff);
      await policy.wait({ reason: 'retry', ms, attempt: failures, retries: policy.maxRetries, error: failure }, signal);
      continue;
    }
    const body = parseBody(response.text);
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    if (response.status === 429) {
      // Not counted by the server (docs/api.md#limits): the interval clock is not reset.
      const ms = retryAfterMs ?? 1000;
      if (ms > policy.maxRetryAfterMs) throw new MealExportRateLimitError(info, response, body, ms);
      await policy.wait({ reason: 'rate_limited', ms }, signal);
      continue;
    }
    policy.pacer.noteAccepted(response.headers, holdMs === undefined ? undefined : sentAt);
    if (response.status >= 200 && response.status < 300) return { response, body };
    const error = httpErrorFor(info, response, body);
    if (response.status < 500) throw error;
    failures += 1;
    if (failures > policy.maxRetries) throw error;
    const ms = Math.min(retryAfterMs ?? backoffDelay(failures, policy.backoff), policy.maxRetryAfterMs);
    await policy.wait({ reason: 'retry', ms, attempt: failures, retries: policy.maxRetries, error }, signal);
  }
}
