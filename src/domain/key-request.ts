import type { ApiKeyRecord } from './key-records.js';
import { randomId } from './random-id.js';

/** Active keys a user may hold: rotation is "create the new key, then revoke the old" (docs/api.md#keys). */
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
