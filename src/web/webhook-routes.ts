import type { FastifyInstance, FastifyReply } from 'fastify';
import { MAX_WEBHOOKS_PER_USER } from '../domain/webhook-endpoint.js';
import { queueWebhookTest, registerWebhook, rotateWebhookSecret } from '../webhooks/webhook-endpoints.js';
import type { WebhookEndpointRecord } from '../domain/webhook-records.js';
import { isWebhookEndpointId } from '../domain/webhook-ids.js';
import type { FormResult } from './flash.js';
import { sendResult } from './home-page.js';
import { type PageDeps, checkForm, formOf, requireSession, sendPage, signedInAs } from './page-context.js';
import { renderMessagePage } from './pages/layout.js';
import { renderWebhookDeletePage } from './pages/webhook-delete-page.js';
import { ROTATION_FIELD, rotationOf, WEBHOOK_ID_FIELD, type WebhooksSectionView } from './pages/webhooks-section.js';
import type { Session } from './sessions.js';

type Notice = NonNullable<WebhooksSectionView['notice']>;
type Done = 'tested' | 'enabled' | 'deleted';

const DONE_TEXT: Readonly<Record<Done, (label: string) => string>> = {
  tested: (label) => `A test call to ${label} is on its way: reload in a few seconds to see it below.`,
  enabled: (label) => `${label} is enabled again: the changes it missed are sent now.`,
  deleted: () => 'The endpoint was deleted.',
};

function labelOf(endpoint: WebhookEndpointRecord): string {
  return endpoint.name === '' ? endpoint.url : `“${endpoint.name}”`;
}

function isDone(text: unknown): text is Done {
  return typeof text === 'string' && Object.hasOwn(DONE_TEXT, text);
}

/** The user's own endpoint with that id: another user's is as unknown as a made-up id. */
async function ownEndpoint(deps: PageDeps, session: Session, id: string): Promise<WebhookEndpointRecord | undefined> {
  const endpoint = await deps.storage.webhooks.findWebhook(id);
  return endpoint?.userId === session.userId ? endpoint : undefined;
}

/** The notice of `/?webhook=<id>&done=<what>`, where the webhook forms redirect (post/redirect/get). */
export async function webhookNotice(
  deps: PageDeps,
  session: Session,
  query: { readonly webhook?: unknown; readonly done?: unknown },
): Promise<Notice | undefined> {
  if (!isDone(query.done)) return undefined;
  if (query.done === 'deleted') return { kind: 'done', text: DONE_TEXT.deleted('') };
  const endpoint = typeof query.webhook === 'string' ? await ownEndpoint(deps, session, query.webhook) : undefined;
  return endpoint === undefined ? undefined : { kind: 'done', text: DONE_TEXT[query.done](labelOf(endpoint)) };
}

// No #fragment: the page's notice takes the focus (autofocus), which a fragment would cancel.
function doneRedirect(reply: FastifyReply, done: Done, id: string): FastifyReply {
  const query = done === 'deleted' ? 'done=deleted' : `webhook=${encodeURIComponent(id)}&done=${done}`;
  return reply.code(303).header('location', `/?${query}`).send();
}

/** The webhook endpoint forms of the app page (docs/webhooks.md#registering-an-endpoint), on the domain's rules. */
export function registerWebhookRoutes(app: FastifyInstance, deps: PageDeps): void {
  type WebhookResult = Omit<Extract<FormResult, { form: 'webhook' }>, 'form'>;
  // Said, or a secret shown once, on the page the redirect opens (never in its URL).
  const show = (reply: FastifyReply, session: Session, result: WebhookResult) =>
    sendResult(deps, reply, session, { form: 'webhook', ...result });
  const refuse = (reply: FastifyReply, session: Session, text: string) =>
    show(reply, session, { notice: { kind: 'refused', text } });
  const noSuchEndpoint = (reply: FastifyReply, session: Session) =>
    sendPage(
      reply,
      404,
      renderMessagePage('No such webhook endpoint', ['It does not exist or was deleted.'], signedInAs(session)),
    );

  app.post('/webhooks', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined || !checkForm(deps, request, reply, session)) return reply;
    const form = formOf(request);
    const id = form.get(WEBHOOK_ID_FIELD) ?? '';
    const url = (form.get('url') ?? '').trim();
    const name = (form.get('name') ?? '').trim();
    // Refused: said at the add form, or beside the field at fault, the fields as they were sent.
    const refuseAdd = (text: string, field?: string) =>
      show(reply, session, { problem: { text, fields: field === undefined ? [] : [field] }, draft: { url, name } });
    if (!isWebhookEndpointId(id)) return refuseAdd('This form is out of date: add the endpoint again from this page.');
    const result = await registerWebhook(deps.storage.webhooks, { id, userId: session.userId, url, name }, Date.now());
    if (result.ok) {
      const newSecret = { endpointId: result.endpoint.id, secret: result.endpoint.secret, rotated: false };
      return show(reply, session, { newSecret });
    }
    switch (result.reason) {
      case 'duplicate_id':
        return refuseAdd(
          'This form was sent already, and its endpoint added then: a secret is shown only once. If you did not copy it, rotate it below.',
        );
      case 'too_many_webhooks':
        return refuseAdd(`You already have ${MAX_WEBHOOKS_PER_USER} webhook endpoints: delete one, then add this one.`);
      default: {
        // The domain's own words ("a webhook URL must start with https://"), as a sentence.
        const text = `${result.message[0]?.toUpperCase() ?? ''}${result.message.slice(1)}. No endpoint was added.`;
        return refuseAdd(text, result.reason === 'invalid_name' ? 'webhook-name' : 'webhook-url');
      }
    }
  });

  /** A POST on one of the user's endpoints: the session, the form, the endpoint, then `act`. */
  function onEndpoint(
    action: string,
    act: (
      reply: FastifyReply,
      session: Session,
      endpoint: WebhookEndpointRecord,
      form: URLSearchParams,
    ) => Promise<FastifyReply>,
  ): void {
    app.post<{ Params: { id: string } }>(`/webhooks/:id/${action}`, async (request, reply) => {
      const session = await requireSession(deps, request, reply);
      if (session === undefined || !checkForm(deps, request, reply, session)) return reply;
      const endpoint = await ownEndpoint(deps, session, request.params.id);
      if (endpoint === undefined) return noSuchEndpoint(reply, session);
      return act(reply, session, endpoint, formOf(request));
    });
  }

  onEndpoint('test', async (reply, session, endpoint) => {
    const queued = await queueWebhookTest(deps.storage.webhooks, endpoint.id, Date.now());
    return queued === undefined ? noSuchEndpoint(reply, session) : doneRedirect(reply, 'tested', endpoint.id);
  });

  onEndpoint('enable', async (reply, session, endpoint) => {
    const enabled = await deps.storage.webhooks.enableWebhook(endpoint.id, Date.now());
    return enabled ? doneRedirect(reply, 'enabled', endpoint.id) : noSuchEndpoint(reply, session);
  });

  onEndpoint('rotate', async (reply, session, endpoint, form) => {
    // Sent twice, a rotation would drop at once the secret the receiver still checks with; the
    // form names the rotation it saw. (A check before the write, not in it: two forms racing
    // within milliseconds could still both rotate.)
    if (form.get(ROTATION_FIELD) !== rotationOf(endpoint)) {
      const text =
        'This form was sent already, or the secret was rotated since this page was shown: it was not rotated again. If you did not copy the new secret, rotate it once more.';
      return refuse(reply, session, text);
    }
    const secret = await rotateWebhookSecret(deps.storage.webhooks, endpoint.id, Date.now());
    if (secret === undefined) return noSuchEndpoint(reply, session);
    return show(reply, session, { newSecret: { endpointId: endpoint.id, secret, rotated: true } });
  });

  onEndpoint('delete', async (reply, session, endpoint) => {
    const deleted = await deps.storage.webhooks.deleteWebhook(endpoint.id);
    return deleted ? doneRedirect(reply, 'deleted', endpoint.id) : noSuchEndpoint(reply, session);
  });

  app.get<{ Params: { id: string } }>('/webhooks/:id/delete', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined) return reply;
    const endpoint = await ownEndpoint(deps, session, request.params.id);
    if (endpoint === undefined) return noSuchEndpoint(reply, session);
    return sendPage(reply, 200, renderWebhookDeletePage(endpoint, signedInAs(session)));
  });
}
