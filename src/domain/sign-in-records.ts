/**
 * The app page's sign-in as the store keeps it: SHA-256 digests of login tokens and session
 * ids, never the values, so a copy of the store lets no one sign in (docs/app.md).
 */

/** A one-time login link's token. */
export interface NewLoginToken {
  /** SHA-256 of the token in the link. */
  readonly digest: Buffer;
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A signed-in browser session of the app page. */
export interface NewSession {
  /** SHA-256 of the session id in the cookie. */
  readonly digest: Buffer;
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A form's result kept for a session's next page, sealed by the page (web/flash.ts). */
export interface SessionFlash {
  /** SHA-256 of the session id, as in NewSession. */
  readonly digest: Buffer;
  readonly sealed: Buffer;
  readonly expiresAt: number;
}

export interface SessionRecord {
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}
