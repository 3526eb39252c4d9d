/**
 * Third-party apps as the store keeps them (docs/host-api.md#apps-connect): registered by the
 * operator, each with a client secret kept as its SHA-256 digest only, never the secret.
 */

export interface AppRecord {
  readonly id: string;
  readonly name: string;
  /** Where the person is sent back after the grant: exact texts, in the order registered. */
  readonly redirectUris: readonly string[];
  readonly homepageUrl: string | null;
  readonly createdAt: number;
  /** When the secret was last replaced; null: the secret of its registration. */
  readonly secretRotatedAt: number | null;
}

export interface NewApp {
  readonly id: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly homepageUrl: string | null;
  /** SHA-256 of the client secret: the plain secret is never stored. */
  readonly secretDigest: Buffer;
  readonly createdAt: number;
}
