import type { Database } from 'better-sqlite3';
import {
  type AuthorizationCodeStore,
  CODE_COLUMNS,
  type CodeRedemption,
  type CodeRow,
  type NewAuthorizationCode,
  redemptionOf,
} from '../authorization-code-store.js';
import type { Implementation } from '../guarded-concerns.js';

/** AuthorizationCodeStore on SQLite: one writer makes each redemption exact. */
export function createSqliteAuthorizationCodes(db: Database): Implementation<AuthorizationCodeStore> {
  const insert = db.prepare(`INSERT INTO oauth_codes (digest, ${CODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const byDigest = db.prepare<[Buffer], CodeRow>(
    `SELECT ${CODE_COLUMNS}, used_at, key_id FROM oauth_codes WHERE digest = ?`,
  );
  const markUsed = db.prepare('UPDATE oauth_codes SET used_at = ? WHERE digest = ?');
  const markReplayed = db.prepare('UPDATE oauth_codes SET replayed_at = coalesce(replayed_at, ?) WHERE digest = ?');
  const setKey = db.prepare<[string, Buffer], { replayed_at: number | null }>(
    'UPDATE oauth_codes SET key_id = ? WHERE digest = ? RETURNING replayed_at',
  );
  const prune = db.prepare('DELETE FROM oauth_codes WHERE expires_at < ?');

  const redeem = db.transaction((digest: Buffer, now: number): CodeRedemption => {
    const found = redemptionOf(byDigest.get(digest), now);
    if (found.kind === 'fresh') markUsed.run(now, digest);
    if (found.kind === 'replayed') markReplayed.run(now, digest);
    return found;
  });

  return {
    createAuthorizationCode(code: NewAuthorizationCode): void {
      const { digest, appId, userId, redirectUri, codeChallenge, scope, createdAt, expiresAt } = code;
      insert.run(digest, appId, userId, redirectUri, codeChallenge, scope, createdAt, expiresAt);
    },
    redeemAuthorizationCode: (digest: Buffer, now: number) => redeem.immediate(digest, now),
    recordCodeKey: (digest: Buffer, keyId: string): boolean =>
      (setKey.get(keyId, digest)?.replayed_at ?? null) !== null,
    pruneAuthorizationCodes: (before: number): number => prune.run(before).changes,
  };
}
