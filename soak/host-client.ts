import { setTimeout as sleep } from 'node:timers/promises';
import { request } from '../test/support/https-request.js';
import type { Instance } from './instance.js';
import { networkErrorCode, type StatusCounts } from './status-counts.js';

/** What one host API call came to. */
export type HostAnswer =
  | { readonly kind: 'answer'; readonly status: number; readonly json: unknown }
  /** Connection refused: the request never reached an instance, so it did nothing. */
  | { readonly kind: 'refused' }
  /** The connection was cut, or no answer came in time: the call may or may not have been done. */
  | { readonly kind: 'uncertain'; readonly code: string };

export interface HostCallSpec {
  readonly method: 'GET' | 'PUT' | 'DELETE' | 'POST';
  readonly path: string;
  readonly json?: unknown;
  /** The statuses this call may answer; any other is counted as unexpected. */
  readonly expected: readonly number[];
}

export interface HostClient {
  /** Sends once to the next instance in turn (each call to another, as a load balancer would). */
  once(call: HostCallSpec): Promise<HostAnswer>;
  /** Sends until an instance answers or cuts the call; a refused connection is tried again, up to `ms`. */
  send(call: HostCallSpec, ms?: number): Promise<HostAnswer>;
}

const ANSWER_TIMEOUT_MS = 30_000;

/**
 * The diet app's back end, as the soak plays it: calls to the host API with the service token
 * (the tests' one-connection-per-request HTTPS helper, test/support/https-request.ts), each
 * counted by its status, or by its network error (expected only while an instance is
 * `disturbed`: killed or starting again).
 */
export function createHostClient(
  instances: readonly Instance[],
  token: string,
  counts: StatusCounts,
  disturbed: () => boolean,
): HostClient {
  let next = 0;
  async function once(call: HostCallSpec): Promise<HostAnswer> {
    const instance = instances[next % instances.length];
    next += 1;
    if (instance === undefined) throw new Error('no instance');
    const body = call.json === undefined ? undefined : JSON.stringify(call.json);
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ANSWER_TIMEOUT_MS);
    });
    try {
      const answer = await Promise.race([
        request(instance.hostApi, { method: call.method, path: call.path, key: token, headers, body }),
        timeout,
      ]);
      if (answer === 'timeout') {
        counts.add('host', 'no answer within 30 s', false);
        return { kind: 'uncertain', code: 'timeout' };
      }
      counts.add('host', String(answer.status), call.expected.includes(answer.status), () => {
        return `${call.method} ${call.path} on instance ${instance.index}: ${answer.text.slice(0, 300)}`;
      });
      return { kind: 'answer', status: answer.status, json: answer.json };
    } catch (error) {
      const code = networkErrorCode(error);
      counts.add(
        'host',
        `network ${code}`,
        disturbed(),
        () => `${call.method} ${call.path} on instance ${instance.index}`,
      );
      return code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'uncertain', code };
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    once,
    async send(call, ms = 60_000) {
      const until = Date.now() + ms;
      for (;;) {
        const answer = await once(call);
        if (answer.kind !== 'refused' || Date.now() > until) return answer;
        await sleep(200);
      }
    },
  };
}
