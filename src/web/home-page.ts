import type { FastifyReply } from 'fastify';
import { newKeyId } from '../domain/key-request.js';
import { newWebhookEndpointId } from '../domain/webhook-ids.js';
import { type PageDeps, sendPage, signedInAs } from './page-context.js';
import { type KeysPageView, renderKeysPage } from './pages/keys-page.js';
import { ATTEMPTS_SHOWN, type WebhooksSectionView } from './pages/webhooks-section.js';
import type { Session } from './sessions.js';
import { CHART_DAYS } from './usage-chart.js';

const DAY_MS = 86_400_000;

/** What a form's answer adds to the page: a new key or secret shown once, a notice. */
export interface HomePageExtra {
  readonly keys?: Pick<KeysPageView, 'newKey' | 'notice'>;
  readonly webhooks?: Pick<WebhooksSectionView, 'newSecret' | 'notice' | 'draft'>;
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
  const signedIn = signedInAs(deps, session);
  const view: KeysPageView = {
    signedIn,
    keys,
    requests,
    now,
    dailyLimit: deps.dailyLimit,
    apiUrl: deps.apiUrl,
    nextKeyId: newKeyId(),
    webhooks: { csrf: signedIn.csrf, rows, nextWebhookId: newWebhookEndpointId(), ...extra.webhooks },
    ...extra.keys,
  };
  return sendPage(reply, status, renderKeysPage(view));
}
