import { digestApiKey, displayPrefix, generateApiKey } from '../domain/api-key.js';
import type { AppRecord } from '../domain/app-records.js';
import type { ApiKeyRecord } from '../domain/key-records.js';
import { MAX_ACTIVE_KEYS, newKeyId } from '../domain/key-request.js';
import type { AppStore, IssueAppKeyResult } from '../storage/app-store.js';

/** A key granted to an app: the plain key, once, and its record. */
export type IssuedAppKey =
  | { readonly ok: true; readonly key: string; readonly record: ApiKeyRecord }
  | { readonly ok: false; readonly reason: Exclude<IssueAppKeyResult, { ok: true }>['reason'] };

/**
 * Makes the key a person granted to an app (docs/connect.md#the-grant): an ordinary key of the
 * person's, named after the app, without expiry, stored as its digest; the app's earlier key
 * for the person is revoked in the same transaction (one key per app and person).
 */
export async function issueAppKey(apps: AppStore, app: AppRecord, userId: string, now: number): Promise<IssuedAppKey> {
  const key = generateApiKey();
  const result = await apps.issueAppKey(
    {
      id: newKeyId(),
      userId,
      name: app.name,
      prefix: displayPrefix(key),
      digest: digestApiKey(key),
      createdAt: now,
      expiresAt: null,
    },
    app.id,
    MAX_ACTIVE_KEYS,
    now,
  );
  return result.ok ? { ok: true, key, record: result.key } : { ok: false, reason: result.reason };
}
