/**
 * API keys and their use as the store keeps them: digests only, never a key
 * (docs/api.md#the-call), and each key's accepted requests per UTC day, which is its use
 * of the daily quota (docs/api.md#limits).
 */

export interface ApiKeyRecord {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  /** The first characters of the key, safe to show (`mxk_` and 8 more). */
  readonly prefix: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
  /** The app the person granted this key to (docs/host-api.md#apps-connect); null for a key made otherwise. */
  readonly appId: string | null;
}

export interface NewApiKey {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly prefix: string;
  /** SHA-256 of the key: the plain key is never stored. */
  readonly digest: Buffer;
  readonly createdAt: number;
  readonly expiresAt: number | null;
}

/** Accepted requests of one key on one UTC day (accepted: authenticated and not refused with 429). */
export interface KeyDayRequests {
  readonly keyId: string;
  /** UTC day number: whole days since 1970-01-01 (Math.floor(epochMs / 86 400 000)). */
  readonly day: number;
  readonly requests: number;
}

/** A flush's accepted requests of one key on one UTC day, and when the latest of them was accepted. */
export interface AcceptedRequests extends KeyDayRequests {
  /**
   * Epoch ms of the latest of these requests, where the interval between requests resumes
   * after a restart. Absent only where nothing limits on it (a test's counts).
   */
  readonly lastAcceptedAt?: number;
}

/** A key's accepted requests on one UTC day, and the latest of them (null for days counted before stores kept it). */
export interface KeyDayUse extends KeyDayRequests {
  readonly lastAcceptedAt: number | null;
}

/** What the key authenticator flushes every few seconds (keys/key-authenticator.ts). */
export interface KeyUses {
  /**
   * Key id -> epoch ms of its latest authenticated request, a 429 included: `keys list`'s
   * lastUsedAt, so not where the interval between accepted requests can resume from.
   */
  readonly lastUsed: ReadonlyMap<string, number>;
  /** Accepted requests since the last flush, to add per key and day. */
  readonly requests: readonly AcceptedRequests[];
}
