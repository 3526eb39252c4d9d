/**
 * Service tokens as the store keeps them (docs/host-api.md#service-tokens): the host API's
 * credentials, held by the app's back end, never by a user. Digests only, never a token.
 */

export interface ServiceTokenRecord {
  readonly id: string;
  readonly name: string;
  /** The first characters of the token, safe to show (`mxs_` and 8 more). */
  readonly prefix: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface NewServiceToken {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  /** SHA-256 of the token: the plain token is never stored. */
  readonly digest: Buffer;
  readonly createdAt: number;
}
