import type { FastifyInstance, FastifyReply } from 'fastify';
import { MAX_WEBHOOKS_PER_USER } from '../domain/webhook-endpoint.js';
import { queueWebhookTest, registerWebhook, rotateWebhookSecret } from '../webhooks/webhook-endpoints.js';
import type { WebhookAttemptRecord, WebhookEndpointRecord } from '../domain/webhook-records.js';
import { isWebhookEndpointId, isWebhookEventId } from '../domain/webhook-ids.js';
import type { FormResult } from './flash.js';
import { html } from './html.js';
import { sendResult } from './home-page.js';
import { type PageDeps, checkForm, formOf, requireSession, sendPage, signedInAs } from './page-context.js';
import { renderMessagePage } from './pages/layout.js';
import { renderWebhookDeletePage } from './pages/webhook-delete-page.js';
import { endpointInWords, renderTestNotice, testCallPath, type TestCallView } from './pages/webhook-test-notice.js';
import {
  ATTEMPTS_SHOWN,
  renderCalls,
  ROTATION_FIELD,
  rotationOf,
  WEBHOOK_ID_FIELD,
  type WebhooksSectionView,
} from './pages/webhooks-section.js';
import type { Session } from './sessions.js';

type Done = 'enabled';

const DONE_TEXT: Readonly<Record<Done, (label: string) => string>> = {
  enabled: (label) => `${label} is enabled again: the changes it missed are sent now.`,
};

function isDone(text: unknown): text is Done {
  return typeof text === 'string' && Object.hasOwn(DONE_TEXT, text);
}

/** The user's own endpoint with that id: another user's is as unknown as a made-up id. */
async function ownEndpoint(deps: PageDeps, session: Session, id: string): Promise<WebhookEndpointRecord | undefined> {
  const endpoint = await deps.storage.webhooks.findWebhook(id);
  return endpoint?.userId === session.userId ? endpoint : undefined;
}

/**
 * A test call of the user's endpoint, its attempt once made, and the endpoint's attempts; undefined
 * for another user's endpoint or a made-up event.
 */
async function testCall(
  deps: PageDeps,
  session: Session,
  id: unknown,
  event: unknown,
): Promise<{ testing: TestCallView; attempts: WebhookAttemptRecord[] } | undefined> {
  if (typeof id !== 'string' || typeof event !== 'string' || !isWebhookEventId(event)) return undefined;
  const endpoint = await ownEndpoint(deps, session, id);
  if (endpoint === undefined) return undefined;
  const attempts = await deps.storage.webhooks.listWebhookAttempts(endpoint.id);
  const attempt = attempts.find((one) => one.eventId === event);
  return { testing: { endpoint, eventId: event, attempt }, attempts };
}

/** The notice of `/?webhook=<id>&done=<what>[&event=<test>]`, where the webhook forms redirect (post/redirect/get). */
export async function webhookNotice(
  deps: PageDeps,
  session: Session,
  query: { readonly webhook?: unknown; readonly done?: unknown; readonly event?: unknown },
): Promise<Pick<WebhooksSectionView, 'notice' | 'testing'>> {
  if (query.done === 'tested') {
    const call = await testCall(deps, session, query.webhook, query.event);
    return call === undefined ? {} : { testing: call.testing };
  }
  if (!isDone(query.done)) return {};
  const endpoint = typeof query.webhook === 'string' ? await ownEndpoint(deps, session, query.webhook) : undefined;
  return endpoint === undefined
    ? {}
    : { notice: { kind: 'done', text: DONE_TEXT[query.done](endpointInWords(endpoint)) } };
}

// No #fragment: the page's notice takes the focus (autofocus), which a fragment would cancel.
function doneRedirect(reply: FastifyReply, done: Done, id: string): FastifyReply {
  return reply
    .code(303)
    .header('location', `/?webhook=${encodeURIComponent(id)}&done=${done}`)
    .send();
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
      renderMessagePage('No such webhook endpoint', ['It does not exist or was deleted.'], signedInAs(deps, session)),
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
    const eventId = await queueWebhookTest(deps.storage.webhooks, endpoint.id, Date.now());
    if (eventId === undefined) return noSuchEndpoint(reply, session);
    return reply.code(303).header('location', testCallPath(endpoint.id, eventId)).send();
  });

  // What webhook-test-result.js asks for while a test call is on its way: the notice and the
  // endpoint's calls, as the page renders them (docs/app.md#a-test-calls-result).
  app.get<{ Params: { id: string }; Querystring: { event?: unknown } }>(
    '/webhooks/:id/calls',
    async (request, reply) => {
      const session = await requireSession(deps, request, reply);
      if (session === undefined) return reply;
      const call = await testCall(deps, session, request.params.id, request.query.event);
      if (call === undefined) return noSuchEndpoint(reply, session);
      const { testing, attempts } = call;
      const calls = renderCalls({ endpoint: testing.endpoint, attempts: attempts.slice(0, ATTEMPTS_SHOWN) });
      return sendPage(reply, 200, html`${renderTestNotice(testing)}${calls}`.text);
    },
  );

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
    if (!deleted) return noSuchEndpoint(reply, session);
    // Named as the person knew it: once deleted, the address could not say which it was.
    return show(reply, session, {
      notice: { kind: 'done', text: `The endpoint ${endpointInWords(endpoint)} was deleted.` },
    });
  });

  app.get<{ Params: { id: string } }>('/webhooks/:id/delete', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined) return reply;
    const endpoint = await ownEndpoint(deps, session, request.params.id);
    if (endpoint === undefined) return noSuchEndpoint(reply, session);
    return sendPage(reply, 200, renderWebhookDeletePage(endpoint, signedInAs(deps, session)));
  });
}
