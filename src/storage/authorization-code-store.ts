import type { CallTraits } from './guarded-concerns.js';

/** A code the consent page issued (docs/connect.md#the-grant): its SHA-256 digest only, never the code. */
export interface NewAuthorizationCode {
  readonly digest: Buffer;
  readonly appId: string;
  readonly userId: string;
  /** As the authorization request gave it: the token request must give the same. */
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scope: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export type AuthorizationCodeRecord = Omit<NewAuthorizationCode, 'digest'>;

/**
 * What presenting a code found. `replayed`: the code was used before; the key it gave (if
 * recorded yet) is to be revoked, and if not recorded yet, recordCodeKey says so when it is.
 */
export type CodeRedemption =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'replayed'; readonly keyId: string | null }
  | { readonly kind: 'fresh'; readonly code: AuthorizationCodeRecord };

/** The authorization codes of Connect: usable once, for 60 s. */
export interface AuthorizationCodeStore {
  createAuthorizationCode(code: NewAuthorizationCode): Promise<void>;
  /**
   * Uses the code up, atomically: of any number of redemptions at once, on any number of
   * instances, one is `fresh` and the others `replayed`.
   */
  redeemAuthorizationCode(digest: Buffer, now: number): Promise<CodeRedemption>;
  /** The key a fresh code gave; true when the code was presented again meanwhile (revoke the key). */
  recordCodeKey(digest: Buffer, keyId: string): Promise<boolean>;
  /** Removes the codes that expired before `before`; how many. */
  pruneAuthorizationCodes(before: number): Promise<number>;
}

export const AUTHORIZATION_CODE_TRAITS: CallTraits<AuthorizationCodeStore> = {
  pruneAuthorizationCodes: ['background'],
};

/** The columns both backends read a code by. */
export const CODE_COLUMNS = 'app_id, user_id, redirect_uri, code_challenge, scope, created_at, expires_at';

export interface CodeRow {
  readonly app_id: string;
  readonly user_id: string;
  readonly redirect_uri: string;
  readonly code_challenge: string;
  readonly scope: string;
  readonly created_at: number;
  readonly expires_at: number;
  readonly used_at: number | null;
  readonly key_id: string | null;
}

/** What a code row says to its redemption at `now`, before the row is marked used. */
export function redemptionOf(row: CodeRow | undefined, now: number): CodeRedemption {
  if (row === undefined) return { kind: 'unknown' };
  if (row.used_at !== null) return { kind: 'replayed', keyId: row.key_id };
  if (row.expires_at <= now) return { kind: 'expired' };
  return {
    kind: 'fresh',
    code: {
      appId: row.app_id,
      userId: row.user_id,
      redirectUri: row.redirect_uri,
      codeChallenge: row.code_challenge,
      scope: row.scope,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    },
  };
}
