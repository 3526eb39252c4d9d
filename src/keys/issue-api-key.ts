import { digestApiKey, displayPrefix, generateApiKey } from '../domain/api-key.js';
import { type ChosenKeyId, type IssuedKey, type KeyRequest, MAX_ACTIVE_KEYS, newKeyId } from '../domain/key-request.js';
import type { KeyStore } from '../storage/key-store.js';

/**
 * Makes a key and stores its digest: the one place keys are made, for `keys create`, the app
 * page and the host module alike. The plain key is in the answer and nowhere else: the caller
 * shows it once.
 */
export function issueApiKey(keys: KeyStore, request: KeyRequest, now: number): Promise<IssuedKey<'too_many_keys'>>;
export function issueApiKey(keys: KeyStore, request: KeyRequest & ChosenKeyId, now: number): Promise<IssuedKey>;
export async function issueApiKey(
  keys: KeyStore,
  request: KeyRequest & Partial<ChosenKeyId>,
  now: number,
): Promise<IssuedKey> {
  const key = generateApiKey();
  const result = await keys.createApiKey(
    {
      id: request.id ?? newKeyId(),
      userId: request.userId,
      name: request.name,
      prefix: displayPrefix(key),
      digest: digestApiKey(key),
      createdAt: now,
      expiresAt: request.lifetimeMs === undefined ? null : now + request.lifetimeMs,
    },
    MAX_ACTIVE_KEYS,
    now,
  );
  return result.ok ? { ok: true, key, record: result.key } : result;
}
