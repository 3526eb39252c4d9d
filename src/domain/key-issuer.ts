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

/** Why no key was made: the user's active keys are at the limit, or (with an id given) the id is taken. */
export type IssueRefusal = 'too_many_keys' | 'duplicate_id';

export type IssuedKey<Refusal extends IssueRefusal = IssueRefusal> =
  | { readonly ok: true; readonly key: string; readonly record: ApiKeyRecord }
  | { readonly ok: false; readonly reason: Refusal };

/**
 * The key's id, chosen by the caller ahead of time, so that sending the same creation twice
 * (a browser resubmitting a form) makes one key: the second is refused as `duplicate_id`.
 */
export interface ChosenKeyId {
  readonly id: string;
}

/** A new key id: `key_` and 16 base62 characters (95 random bits). */
export function newKeyId(): string {
  return randomId('key_', KEY_ID_LENGTH);
}

const KEY_ID_LENGTH = 16;
const KEY_ID_RE = new RegExp(`^key_[0-9A-Za-z]{${KEY_ID_LENGTH}}$`);

/** True when the text could be an id newKeyId made (a form's chosen id is checked with it). */
export function isKeyId(text: string): boolean {
  return KEY_ID_RE.test(text);
}

/**
 * Makes a key and stores its digest: the one place keys are made, for `keys create`, the app
 * page and the host module alike. The plain key is in the answer and nowhere else: the caller
 * shows it once.
 */
export function issueApiKey(storage: Storage, request: KeyRequest, now: number): Promise<IssuedKey<'too_many_keys'>>;
export function issueApiKey(storage: Storage, request: KeyRequest & ChosenKeyId, now: number): Promise<IssuedKey>;
export async function issueApiKey(
  storage: Storage,
  request: KeyRequest & Partial<ChosenKeyId>,
  now: number,
): Promise<IssuedKey> {
  const key = generateApiKey();
  const result = await storage.createApiKey(
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
