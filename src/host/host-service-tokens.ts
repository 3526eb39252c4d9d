import { formatInstant } from '../domain/instant.js';
import type { ServiceTokenRecord } from '../domain/service-token-records.js';
import { issueServiceToken } from '../keys/issue-service-token.js';
import type { Storage } from '../storage/storage.js';
import type { MealHost, ServiceTokenInfo } from './host-api.js';
import { MealHostError } from './host-error.js';
import { orNull } from './host-records.js';

/** The host's service token methods: `service-tokens …` of the command line, for the app's code. */
export type HostServiceTokens = Pick<MealHost, 'createServiceToken' | 'listServiceTokens' | 'revokeServiceToken'>;

/** A token as `listServiceTokens` gives it: never the secret. */
function serviceTokenInfo(record: ServiceTokenRecord): ServiceTokenInfo {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    createdAt: formatInstant(record.createdAt),
    lastUsedAt: orNull(record.lastUsedAt),
    revokedAt: orNull(record.revokedAt),
  };
}

export function createHostServiceTokens(storage: Storage): HostServiceTokens {
  return {
    async createServiceToken(options) {
      const issued = await issueServiceToken(storage.serviceTokens, options.name, Date.now());
      if (!issued.ok) throw new MealHostError('invalid_argument', issued.message);
      const { token, record } = issued;
      return { id: record.id, token, name: record.name, createdAt: formatInstant(record.createdAt) };
    },

    async listServiceTokens() {
      return (await storage.serviceTokens.listServiceTokens()).map(serviceTokenInfo);
    },

    async revokeServiceToken(id) {
      return (await storage.serviceTokens.revokeServiceToken(id, Date.now())) !== undefined;
    },
  };
}
