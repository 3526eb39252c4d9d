import type { FastifyReply } from 'fastify';
import { isActiveKey } from '../domain/api-key.js';
import type { ApiKeyRecord } from '../domain/key-records.js';
import { newKeyId } from '../domain/key-request.js';
import { newWebhookEndpointId } from '../domain/webhook-ids.js';
import type { FormResult } from './flash.js';
import { type PageDeps, sendPage, signedInAs } from './page-context.js';
import type { ConnectedApp } from './pages/connected-apps.js';
import { type KeysPageView, renderKeysPage } from './pages/keys-page.js';
import { ATTEMPTS_SHOWN, type WebhookRow, type WebhooksSectionView } from './pages/webhooks-section.js';
import type { Session } from './sessions.js';
import { CHART_DAYS } from './usage-chart.js';

const DAY_MS = 86_400_000;

/** What the page adds to the store's lists: a notice from a redirect's query, a form's one-time result. */
export interface HomePageExtra {
  readonly keys?: Pick<KeysPageView, 'notice'>;
  readonly csv?: KeysPageView['csv'];
  readonly webhooks?: Pick<WebhooksSectionView, 'notice' | 'testing'>;
  /** The result to show, or how to take it (the session's flash) once the lists are read. */
  readonly result?: FormResult | (() => Promise<FormResult | undefined>);
}

type ResultView = Pick<KeysPageView, 'newKey' | 'generate'> & {
  readonly webhooks?: Pick<WebhooksSectionView, 'newSecret' | 'notice' | 'draft' | 'problem'>;
};

/** A form's result as the page shows it, on the records just read (a key revoked meanwhile is still shown). */
function resultView(
  result: FormResult | undefined,
  keys: KeysPageView['keys'],
  rows: readonly WebhookRow[],
): ResultView {
  if (result === undefined) return {};
  if (result.form === 'key') {
    const { newKey, problem, draft } = result;
    const record = newKey === undefined ? undefined : keys.find((key) => key.id === newKey.keyId);
    return {
      ...(newKey !== undefined && record !== undefined ? { newKey: { key: newKey.key, record } } : {}),
      ...(problem !== undefined ? { generate: { problem, draft: draft ?? { name: '', expiresIn: '' } } } : {}),
    };
  }
  const { newSecret, ...rest } = result;
  const endpoint = rows.find((row) => row.endpoint.id === newSecret?.endpointId)?.endpoint;
  return {
    webhooks: {
      ...rest,
      ...(newSecret !== undefined && endpoint !== undefined
        ? { newSecret: { endpoint, secret: newSecret.secret, rotated: newSecret.rotated } }
        : {}),
    },
  };
}

/** The active keys of apps the person connected, each under its app's name (its key's when the app is gone). */
async function connectedApps(deps: PageDeps, keys: readonly ApiKeyRecord[], now: number): Promise<ConnectedApp[]> {
  const granted = keys.filter((key) => key.appId !== null && isActiveKey(key, now));
  return Promise.all(
    granted.map(async (key) => {
      const appId = key.appId ?? '';
      return { appId, name: (await deps.storage.apps.findApp(appId))?.name ?? key.name, key };
    }),
  );
}

/** The signed-in page (Resources → Export): keys, use, webhooks, the CSV download, from the store now. */
export async function sendHomePage(
  deps: PageDeps,
  reply: FastifyReply,
  status: number,
  session: Session,
  extra: HomePageExtra = {},
): Promise<FastifyReply> {
  const now = Date.now();
  const today = Math.floor(now / DAY_MS);
  const [keys, requests, endpoints] = await Promise.all([
    deps.storage.keys.listApiKeys(session.userId),
    deps.storage.quota.listKeyRequests(session.userId, today - CHART_DAYS + 1, today),
    deps.storage.webhooks.listWebhooks(session.userId),
  ]);
  const rows = await Promise.all(
    endpoints.map(async (endpoint) => ({
      endpoint,
      attempts: (await deps.storage.webhooks.listWebhookAttempts(endpoint.id)).slice(0, ATTEMPTS_SHOWN),
    })),
  );
  // Taken last: a store that fails above leaves a one-time key or secret for the next try.
  const result = typeof extra.result === 'function' ? await extra.result() : extra.result;
  const shown = resultView(result, keys, rows);
  const signedIn = signedInAs(deps, session);
  const view: KeysPageView = {
    signedIn,
    keys: keys.filter((key) => key.appId === null),
    connected: {
      apps: await connectedApps(deps, keys, now),
      requests,
      now,
      dailyLimit: deps.dailyLimit,
      csrf: signedIn.csrf,
    },
    requests,
    now,
    dailyLimit: deps.dailyLimit,
    apiUrl: deps.apiUrl,
    nextKeyId: newKeyId(),
    webhooks: {
      csrf: signedIn.csrf,
      rows,
      nextWebhookId: newWebhookEndpointId(),
      ...extra.webhooks,
      ...shown.webhooks,
    },
    ...extra.keys,
    ...(extra.csv === undefined ? {} : { csv: extra.csv }),
    ...(shown.newKey === undefined ? {} : { newKey: shown.newKey }),
    ...(shown.generate === undefined ? {} : { generate: shown.generate }),
  };
  return sendPage(reply, status, renderKeysPage(view));
}

/**
 * The answer to a form that did something or was refused: its result kept for the session's
 * next page, and a 303 to that page, so that Back and reload never send the form again
 * (docs/app.md#what-a-form-did). Should the store refuse to keep it, the answer shows it
 * itself, as a last resort.
 */
export async function sendResult(
  deps: PageDeps,
  reply: FastifyReply,
  session: Session,
  result: FormResult,
): Promise<FastifyReply> {
  try {
    await deps.flashes.put(session, result, Date.now());
  } catch (err) {
    reply.log.warn({ err }, "could not keep a form's result for the next page: it is shown in the answer");
    return sendHomePage(deps, reply, 200, session, { result });
  }
  return reply.code(303).header('location', '/').send();
}
