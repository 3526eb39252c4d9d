import type { ApiKeyRecord, NewApiKey } from '../domain/key-records.js';

/** API keys, stored as digests. */
export interface KeyStore {
  /**
   * Stores a new key unless its id is taken or the user already holds `maxActive` active keys
   * (exact under concurrent creations on any number of instances).
   */
  createApiKey(key: NewApiKey, maxActive: number, now: number): Promise<CreateKeyResult>;
  listApiKeys(userId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key (idempotent: an already revoked key keeps its first revokedAt). */
  revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined>;
  /**
   * The keys stored under these digests, in the order asked (undefined where there is none),
   * revoked and expired ones included: one query for the whole batch, so that many lookups
   * waiting together cost the store one round trip (keys/key-authenticator.ts).
   */
  findApiKeysByDigests(digests: readonly Buffer[]): Promise<(ApiKeyRecord | undefined)[]>;
  /**
   * Of these key ids, the ones still accepted at `now`: stored (not erased with their person),
   * not revoked, not expired. One query for all of them, so that the keys of a process's held
   * long polls cost the store a query per thousand every two seconds (http/held-requests.ts).
   */
  acceptedKeyIds(keyIds: readonly string[], now: number): Promise<ReadonlySet<string>>;
}

/** `duplicate_id`: a key with that id exists already (a creation sent twice); nothing was changed. */
export type CreateKeyResult =
  | { readonly ok: true; readonly key: ApiKeyRecord }
  | { readonly ok: false; readonly reason: 'too_many_keys' | 'duplicate_id' };
