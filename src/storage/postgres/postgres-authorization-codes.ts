import type { Sql } from 'postgres';
import {
  type AuthorizationCodeStore,
  CODE_COLUMNS,
  type CodeRedemption,
  type CodeRow,
  type NewAuthorizationCode,
  redemptionOf,
} from '../authorization-code-store.js';

const PREPARED = { prepare: true } as const;

/** AuthorizationCodeStore on PostgreSQL: the code's row locked, so two instances redeem it one after the other. */
export function createPostgresAuthorizationCodes(sql: Sql): AuthorizationCodeStore {
  return {
    async createAuthorizationCode(code: NewAuthorizationCode): Promise<void> {
      const { digest, appId, userId, redirectUri, codeChallenge, scope, createdAt, expiresAt } = code;
      await sql.unsafe(
        `INSERT INTO oauth_codes (digest, ${CODE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [digest, appId, userId, redirectUri, codeChallenge, scope, createdAt, expiresAt],
        PREPARED,
      );
    },

    redeemAuthorizationCode(digest: Buffer, now: number): Promise<CodeRedemption> {
      return sql.begin(async (tx) => {
        const [row] = await tx.unsafe<CodeRow[]>(
          `SELECT ${CODE_COLUMNS}, used_at, key_id FROM oauth_codes WHERE digest = $1 FOR UPDATE`,
          [digest],
          PREPARED,
        );
        const found = redemptionOf(row, now);
        if (found.kind === 'fresh') {
          await tx.unsafe('UPDATE oauth_codes SET used_at = $2 WHERE digest = $1', [digest, now], PREPARED);
        } else if (found.kind === 'replayed') {
          await tx.unsafe(
            'UPDATE oauth_codes SET replayed_at = coalesce(replayed_at, $2) WHERE digest = $1',
            [digest, now],
            PREPARED,
          );
        }
        return found;
      });
    },

    async recordCodeKey(digest: Buffer, keyId: string): Promise<boolean> {
      const [row] = await sql.unsafe<{ replayed_at: number | null }[]>(
        'UPDATE oauth_codes SET key_id = $2 WHERE digest = $1 RETURNING replayed_at',
        [digest, keyId],
        PREPARED,
      );
      return (row?.replayed_at ?? null) !== null;
    },

    async pruneAuthorizationCodes(before: number): Promise<number> {
      const rows = await sql.unsafe('DELETE FROM oauth_codes WHERE expires_at < $1 RETURNING 1', [before], PREPARED);
      return rows.length;
    },
  };
}
