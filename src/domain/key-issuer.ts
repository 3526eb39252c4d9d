import type { ApiKeyRecord, Storage } from '../storage/storage.js';
import { digestApiKey, displayPrefix, generateApiKey } from './api-key.js';
import { randomId } from './random-id.js';

/** CONTRACT.md section 3: rotation is "create the new key, then revoke the old". */
export const MAX_ACTIVE_KEYS = 10;

export interface KeyRequest {
  readonly userId: string;
  /** A label the user picks; "" for none. */
  readonly name: string;
  /** How long the key lives; undefined: until revoked. */
  readonly lifetimeMs: number | undefined;
}

export type IssuedKey =
  | { readonly ok: true; readonly key: string; readonly record: ApiKeyRecord }
  | { readonly ok: false; readonly reason: 'too_many_keys' };

/**
 * Makes a key and stores its digest: the one place keys are made, for `keys create`, the app
 * page and the host module alike. The plain key is in the answer and nowhere else: the caller
 * shows it once.
 */
export async function issueApiKey(storage: Storage, request: KeyRequest, now: number): Promise<IssuedKey> {
  const key = generateApiKey();
  const result = await storage.createApiKey(
    {
      id: randomId('key_', 16),
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
