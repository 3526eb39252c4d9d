import { issueServiceToken } from '../keys/issue-service-token.js';
import type { Storage } from '../storage/storage.js';
import type { MealHost } from './meal-host-types.js';
import { MealHostError } from './meal-host-error.js';
import { createdServiceTokenView, serviceTokenInfo } from './host-records.js';

/** The host's service token methods: `service-tokens …` of the command line, for the app's code. */
export type HostServiceTokens = Pick<MealHost, 'createServiceToken' | 'listServiceTokens' | 'revokeServiceToken'>;

export function createHostServiceTokens(storage: Storage): HostServiceTokens {
  return {
    async createServiceToken(options) {
      const issued = await issueServiceToken(storage.serviceTokens, options.name, Date.now());
      if (!issued.ok) throw new MealHostError('invalid_argument', issued.message);
      const { token, record } = issued;
      return createdServiceTokenView(token, record);
    },

    async listServiceTokens() {
      return (await storage.serviceTokens.listServiceTokens()).map(serviceTokenInfo);
    },

    async revokeServiceToken(id) {
      return (await storage.serviceTokens.revokeServiceToken(id, Date.now())) !== undefined;
    },
  };
}
