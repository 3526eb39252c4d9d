import { createHttpsTransport } from '../src/client/https-transport.js';
import type { HttpTransport } from '../src/client/transport.js';
import { networkErrorCode, type StatusCounts } from './status-counts.js';

/**
 * The SDK's own node:https transport, trusting the instances' certificate, that counts what each
 * request of the public API got. A 429 is expected only right after a request of the same client
 * that the server may have accepted later than the SDK reckons: one whose connection was cut or
 * that the soak dropped (the instance may have counted it), or a long poll, which the SDK takes
 * as accepted at most 1 s after it was sent (HELD_ACCEPTANCE_MARGIN_MS in src/client/pacer.ts:
 * a later arrival costs a 429 and its Retry-After, by design). A network error is expected only
 * while an instance is being killed or restarted (`disturbed`).
 */
export function createCountingTransport(
  label: string,
  ca: string,
  counts: StatusCounts,
  disturbed: () => boolean,
): HttpTransport {
  const inner = createHttpsTransport({ ca });
  let previous: 'answered' | 'held' | 'cut' = 'answered';
  return {
    async get(url, headers, signal, options) {
      try {
        const answer = await inner.get(url, headers, signal, options);
        if (answer.status === 429 && previous !== 'answered') {
          counts.add('public', previous === 'held' ? '429 after a held poll' : '429 after a cut request', true);
        } else {
          counts.add('public', String(answer.status), answer.status === 200, () => {
            const limits = ['ratelimit', 'ratelimit-policy', 'retry-after'].map((h) => `${h}: ${answer.headers[h]}`);
            return `${label} ${url.pathname}${url.search}: ${limits.join(', ')}; ${answer.text.slice(0, 300)}`;
          });
        }
        previous = options?.holdMs === undefined ? 'answered' : 'held';
        return answer;
      } catch (error) {
        // The soak's own stop of a follower drops its held poll: not an answer of the service.
        if (signal?.aborted !== true) {
          counts.add('public', `network ${networkErrorCode(error)}`, disturbed(), () => `${label} ${url.pathname}`);
        }
        previous = 'cut';
        throw error;
      }
    },
    close: () => inner.close(),
  };
}
