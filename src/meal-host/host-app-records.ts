import type { AppRecord } from '../domain/app-records.js';
import { formatInstant } from '../domain/instant.js';

/**
 * Apps as the host API, `apps … --json` and `meal-export/host` show them
 * (docs/host-api.md#apps-connect): never a secret but once, at its making.
 */

/** An app as `apps list --json` shows it (and the host API's GET): no secret. */
export function appView(record: AppRecord) {
  return {
    id: record.id,
    name: record.name,
    redirectUris: [...record.redirectUris],
    homepageUrl: record.homepageUrl,
    createdAt: formatInstant(record.createdAt),
  };
}

/** An app just registered, as `apps create --json` shows it (and the host API's 201): its secret, once. */
export function createdAppView(record: AppRecord, clientSecret: string) {
  return { ...appView(record), clientSecret };
}

/** An app's new secret, as `apps rotate-secret --json` shows it (and the host API's 200): once. */
export const rotatedAppSecretView = (id: string, clientSecret: string) => ({ id, clientSecret });
