import type { AppRecord } from '../domain/app-records.js';
import { type AppFault, appRegistrationOf } from '../domain/app-registration.js';
import { digestAppSecret, generateAppSecret, newAppId } from '../domain/app-secret.js';
import type { AppStore } from '../storage/app-store.js';

export type RegisteredApp =
  | { readonly ok: true; readonly secret: string; readonly record: AppRecord }
  | { readonly ok: false; readonly fault: AppFault };

/**
 * Registers a third-party app (docs/host-api.md#apps-connect): the one place apps are made, for
 * the host API, `apps create` and `meal-export/host` alike. The registration is checked by its
 * rules (domain/app-registration.ts); the client secret is in the answer and nowhere else, the
 * store keeps its digest: the caller shows it once.
 */
export async function registerApp(
  store: Pick<AppStore, 'createApp'>,
  input: { readonly name: unknown; readonly redirectUris: unknown; readonly homepageUrl?: unknown },
  now: number,
): Promise<RegisteredApp> {
  const checked = appRegistrationOf(input);
  if (!checked.ok) return checked;
  const secret = generateAppSecret();
  const record = await store.createApp({
    id: newAppId(),
    ...checked.registration,
    secretDigest: digestAppSecret(secret),
    createdAt: now,
  });
  return { ok: true, secret, record };
}

/** A new client secret for the app, stored as its digest: the old one stops at once. Undefined when unknown. */
export async function rotateAppSecret(
  store: Pick<AppStore, 'rotateAppSecret'>,
  id: string,
  now: number,
): Promise<{ readonly secret: string; readonly record: AppRecord } | undefined> {
  const secret = generateAppSecret();
  const record = await store.rotateAppSecret(id, digestAppSecret(secret), now);
  return record === undefined ? undefined : { secret, record };
}
