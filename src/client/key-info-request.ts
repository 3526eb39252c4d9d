import type { KeyInfo } from '../domain/key-info.js';
import { MealExportResponseError } from './errors.js';
import type { Pacer } from './pacer.js';
import { type RequestPolicy, sendRequest } from './send-request.js';

/** `https://host/prefix` and `https://host/prefix/` both lead to `https://host/prefix/v1/key`. */
export function keyUrl(baseUrl: string | URL): URL {
  const base = new URL(baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL('v1/key', base);
}

/**
 * GET /v1/key counts nothing (docs/api.md#your-key-and-its-limits): it neither waits for the
 * interval nor restarts it, so it goes past the client's pacer. Retries and Retry-After as any
 * request.
 */
const UNPACED: Pacer = {
  ready: async () => Date.now(),
  noteAccepted: () => {},
  noteUnanswered: () => {},
};

function isKeyInfo(body: unknown): body is KeyInfo {
  if (typeof body !== 'object' || body === null) return false;
  const info = body as Record<string, unknown>;
  const key = info.key as Record<string, unknown> | null | undefined;
  const limits = info.limits as Record<string, unknown> | null | undefined;
  return (
    info.ok === true &&
    typeof key?.id === 'string' &&
    typeof key.userId === 'string' &&
    typeof limits?.remainingToday === 'number' &&
    typeof limits.nextAcceptedAt === 'string'
  );
}

/** The key of the client and where it stands against its limits, as the server sent it. */
export async function fetchKeyInfo(policy: RequestPolicy, url: URL, signal?: AbortSignal): Promise<KeyInfo> {
  const { response, body } = await sendRequest({ ...policy, pacer: UNPACED }, url, { signal });
  if (!isKeyInfo(body)) throw new MealExportResponseError({ method: 'GET', url: url.href }, response, 'not a key info');
  return body;
}
