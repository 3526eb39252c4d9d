import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseDuration } from '../domain/duration.js';
import { isKeyId, MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import { issueApiKey } from '../keys/issue-api-key.js';
import { type ApiKeyRecord } from '../domain/key-records.js';
import { isActiveKey } from '../domain/api-key.js';
import { type CsvQuery, csvFormView } from './csv-routes.js';
import { sendHomePage, sendResult } from './home-page.js';
import { type PageDeps, checkForm, formOf, requireSession, sendPage, signedInAs } from './page-context.js';
import type { FormProblem } from './pages/form-problem.js';
import { keyLabel } from './pages/keys-list.js';
import { EXPIRY_CHOICES, KEY_ID_FIELD } from './pages/keys-page.js';
import { renderMessagePage } from './pages/layout.js';
import { renderRevokePage } from './pages/revoke-page.js';
import type { Session } from './sessions.js';
import { webhookNotice } from './webhook-routes.js';

const MAX_NAME_LENGTH = 100;
// C0 and C1 controls: a name is shown in pages and `keys list`.
const CONTROL_CHARACTER_RE = /\p{Cc}/u;

/** The keys page and the key forms. */
export function registerKeyRoutes(app: FastifyInstance, deps: PageDeps): void {
  /** The user's own key with that id: another user's key is as unknown as a made-up id. */
  async function ownKey(session: Session, keyId: string): Promise<ApiKeyRecord | undefined> {
    return (await deps.storage.keys.listApiKeys(session.userId)).find((key) => key.id === keyId);
  }

  function noSuchKey(reply: FastifyReply, session: Session) {
    return sendPage(
      reply,
      404,
      renderMessagePage('No such key', ['This key does not exist or is already revoked.'], signedInAs(deps, session)),
    );
  }

  type HomeQuery = { revoked?: string; webhook?: unknown; done?: unknown; event?: unknown } & CsvQuery;
  app.get<{ Querystring: HomeQuery }>('/', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined) return reply;
    const revokedId = request.query.revoked;
    const revoked = typeof revokedId === 'string' ? await ownKey(session, revokedId) : undefined;
    const text =
      revoked?.appId === null
        ? `The key ${keyLabel(revoked)} was revoked.`
        : `${revoked?.name ?? ''} is disconnected: its key no longer works.`;
    const notice = revoked === undefined ? undefined : { kind: 'done' as const, text };
    const webhooks = await webhookNotice(deps, session, request.query);
    const csv = await csvFormView(deps, session, request.query);
    return sendHomePage(deps, reply, 200, session, {
      keys: notice === undefined ? {} : { notice },
      ...(csv === undefined ? {} : { csv }),
      webhooks,
      result: () => deps.flashes.take(session, Date.now()),
    });
  });

  app.post('/keys', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined || !checkForm(deps, request, reply, session)) return reply;
    const form = formOf(request);
    const name = (form.get('name') ?? '').trim();
    const expiresIn = form.get('expiresIn') ?? '';
    // Refused: said on the page the redirect opens, the fields as they were sent.
    const refuse = (problem: FormProblem) =>
      sendResult(deps, reply, session, { form: 'key', problem, draft: { name, expiresIn } });
    if (name.length > MAX_NAME_LENGTH || CONTROL_CHARACTER_RE.test(name)) {
      const text = `A key's name is at most ${MAX_NAME_LENGTH} characters of text. No key was made.`;
      return refuse({ text, fields: ['key-name'] });
    }
    if (!EXPIRY_CHOICES.some((choice) => choice.value === expiresIn)) {
      return refuse({ text: 'Choose when the key expires from the list. No key was made.', fields: ['key-expiry'] });
    }
    const id = form.get(KEY_ID_FIELD) ?? '';
    if (!isKeyId(id)) {
      return refuse({ text: 'This form is out of date: generate the key again from this page. No key was made.' });
    }
    const lifetimeMs = expiresIn === '' ? undefined : parseDuration(expiresIn);
    const issued = await issueApiKey(deps.storage.keys, { id, userId: session.userId, name, lifetimeMs }, Date.now());
    if (!issued.ok) {
      const text =
        issued.reason === 'duplicate_id'
          ? 'This form was sent already, and its key made then: a key is shown only once. If you did not copy it, revoke it below and generate another.'
          : `You already have ${MAX_ACTIVE_KEYS} active keys: revoke one you no longer use, then generate a new one.`;
      return refuse({ text });
    }
    // Shown once, on the page the redirect opens: never in its URL, and a reload finds it gone.
    return sendResult(deps, reply, session, { form: 'key', newKey: { keyId: issued.record.id, key: issued.key } });
  });

  // Disconnect (docs/connect.md#revocation-and-disconnecting): the app's key of this person, revoked at once.
  app.post<{ Params: { appId: string } }>('/connected-apps/:appId/disconnect', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined || !checkForm(deps, request, reply, session)) return reply;
    const now = Date.now();
    const keys = await deps.storage.keys.listApiKeys(session.userId);
    const key = keys.find((candidate) => candidate.appId === request.params.appId && isActiveKey(candidate, now));
    if (key === undefined) return noSuchKey(reply, session);
    await deps.storage.keys.revokeApiKey(key.id, now);
    return reply
      .code(303)
      .header('location', `/?revoked=${encodeURIComponent(key.id)}`)
      .send();
  });

  app.get<{ Params: { id: string } }>('/keys/:id/revoke', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined) return reply;
    const key = await ownKey(session, request.params.id);
    if (key === undefined || !isActiveKey(key, Date.now())) return noSuchKey(reply, session);
    return sendPage(reply, 200, renderRevokePage(key, signedInAs(deps, session)));
  });

  app.post<{ Params: { id: string } }>('/keys/:id/revoke', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined || !checkForm(deps, request, reply, session)) return reply;
    const key = await ownKey(session, request.params.id);
    if (key === undefined) return noSuchKey(reply, session);
    await deps.storage.keys.revokeApiKey(key.id, Date.now());
    return reply
      .code(303)
      .header('location', `/?revoked=${encodeURIComponent(key.id)}`)
      .send();
  });
}
