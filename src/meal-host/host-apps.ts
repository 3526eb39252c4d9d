import { registerApp, rotateAppSecret } from '../keys/register-app.js';
import type { Storage } from '../storage/storage.js';
import type { MealHost } from './meal-host-types.js';
import { appView, createdAppView, rotatedAppSecretView } from './host-app-records.js';
import { MealHostError } from './meal-host-error.js';

/** The host's app methods: `apps …` of the command line, for the app's code (docs/host-api.md#apps-connect). */
export type HostApps = Pick<MealHost, 'createApp' | 'listApps' | 'deleteApp' | 'rotateAppSecret'>;

export function createHostApps(storage: Storage): HostApps {
  return {
    async createApp(options) {
      const registered = await registerApp(storage.apps, options, Date.now());
      if (!registered.ok) throw new MealHostError('invalid_argument', registered.fault.message);
      return createdAppView(registered.record, registered.secret);
    },

    async listApps() {
      return (await storage.apps.listApps()).map(appView);
    },

    async deleteApp(id) {
      return (await storage.apps.deleteApp(id, Date.now())) !== undefined;
    },

    async rotateAppSecret(id) {
      const rotated = await rotateAppSecret(storage.apps, id, Date.now());
      return rotated === undefined ? undefined : rotatedAppSecretView(rotated.record.id, rotated.secret);
    },
  };
}
