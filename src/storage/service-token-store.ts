import type { NewServiceToken, ServiceTokenRecord } from '../domain/service-token-records.js';
import type { CallTraits } from './guarded-concerns.js';

/** The host API's service tokens, stored as digests (docs/host-api.md#service-tokens). */
export interface ServiceTokenStore {
  createServiceToken(token: NewServiceToken): Promise<ServiceTokenRecord>;
  /** Every token, oldest first, revoked ones included. */
  listServiceTokens(): Promise<ServiceTokenRecord[]>;
  /** Revokes a token (idempotent: a revoked token keeps its first revokedAt); undefined when unknown. */
  revokeServiceToken(id: string, now: number): Promise<ServiceTokenRecord | undefined>;
  /** The token stored under this digest, revoked or not. */
  findServiceTokenByDigest(digest: Buffer): Promise<ServiceTokenRecord | undefined>;
  /** Records a use: lastUsedAt moves forward only. */
  touchServiceToken(id: string, at: number): Promise<void>;
}

export const SERVICE_TOKEN_TRAITS: CallTraits<ServiceTokenStore> = { touchServiceToken: ['background'] };
