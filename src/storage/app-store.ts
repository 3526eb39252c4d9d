import type { AppRecord, NewApp } from '../domain/app-records.js';
import type { ApiKeyRecord, NewApiKey } from '../domain/key-records.js';

/** Third-party apps registered by the operator (docs/host-api.md#apps-connect), secrets as digests. */
export interface AppStore {
  createApp(app: NewApp): Promise<AppRecord>;
  /** Every app, oldest first. */
  listApps(): Promise<AppRecord[]>;
  findApp(id: string): Promise<AppRecord | undefined>;
  /** The app whose client secret has this digest (a rotated-out secret finds none). */
  findAppBySecretDigest(digest: Buffer): Promise<AppRecord | undefined>;
  /**
   * Deletes the app and, in the same transaction, revokes every active key issued through it;
   * undefined when no app has that id. A key being issued through it at that moment is either
   * revoked with the others or refused as `unknown_app`.
   */
  deleteApp(id: string, now: number): Promise<{ readonly revokedKeys: number } | undefined>;
  /** Replaces the app's secret digest: the old secret finds nothing from now on. Undefined when unknown. */
  rotateAppSecret(id: string, digest: Buffer, now: number): Promise<AppRecord | undefined>;
  /**
   * Stores a key of `key.userId` issued through the app: the app's earlier active key for that
   * user is revoked in the same transaction (one key per app and person), and the user's
   * `maxActive` active keys, that earlier key not counted, hold exactly under concurrent
   * creations, as KeyStore.createApiKey's.
   */
  issueAppKey(key: NewApiKey, appId: string, maxActive: number, now: number): Promise<IssueAppKeyResult>;
}

/** `replaced`: the id of the app's earlier key for the user, revoked by this one. */
export type IssueAppKeyResult =
  | { readonly ok: true; readonly key: ApiKeyRecord; readonly replaced: string | null }
  | { readonly ok: false; readonly reason: 'too_many_keys' | 'duplicate_id' | 'unknown_app' };
