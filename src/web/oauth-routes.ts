import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isActiveKey } from '../domain/api-key.js';
import {
  AUTHORIZATION_CODE_TTL_MS,
  digestAuthorizationCode,
  newAuthorizationCode,
} from '../domain/authorization-code.js';
import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import {
  type AuthorizationCheck,
  type AuthorizationRequest,
  checkAuthorizationRequest,
  redirectWith,
  requestedAppId,
} from '../domain/oauth-authorization.js';
import { CSRF_FIELD, isValidCsrfToken } from './csrf.js';
import {
  formOf,
  type PageDeps,
  pageOrigins,
  refuseForm,
  sendPage,
  sendSignedOutPage,
  signedInAs,
  signedOut,
} from './page-context.js';
import { consentHeaders } from './page-headers.js';
import { renderConsentPage } from './pages/consent-page.js';
import { renderMessagePage, renderWayBack } from './pages/layout.js';
import type { Session } from './sessions.js';

/** Connect's authorization endpoint on the app page (docs/connect.md#the-grant). */
export const AUTHORIZE_PATH = '/oauth/authorize';

function queryOf(request: FastifyRequest): URLSearchParams {
  const at = request.url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1));
}

async function checked(deps: PageDeps, parameters: URLSearchParams): Promise<AuthorizationCheck> {
  const appId = requestedAppId(parameters);
  const app = appId === undefined ? undefined : await deps.storage.apps.findApp(appId);
  return checkAuthorizationRequest(parameters, app);
}

/** Answers a check that is not `valid`: a page (no redirect) or the error sent back to the app. */
function answerFault(deps: PageDeps, reply: FastifyReply, check: Exclude<AuthorizationCheck, { kind: 'valid' }>) {
  if (check.kind === 'refused') {
    return sendSignedOutPage(deps, reply, 400, 'This app cannot connect', [
      check.reason,
      'Nothing was shared. Tell the app, or its maker, that its connection is set up wrongly.',
    ]);
  }
  const { redirectUri, state, error, description } = check;
  const location = redirectWith(redirectUri, deps.issuer, { error, error_description: description, state });
  return reply.code(303).header('location', location).send();
}

/** Whether the person's active keys leave no room for one more (the app's own key would be replaced). */
async function keysFull(deps: PageDeps, userId: string, appId: string): Promise<boolean> {
  const now = Date.now();
  const active = (await deps.storage.keys.listApiKeys(userId)).filter(
    (key) => isActiveKey(key, now) && key.appId !== appId,
  );
  return active.length >= MAX_ACTIVE_KEYS;
}

async function showConsent(deps: PageDeps, reply: FastifyReply, session: Session, request: AuthorizationRequest) {
  const app = await deps.storage.apps.findApp(request.appId);
  if (app === undefined)
    return answerFault(deps, reply, { kind: 'refused', reason: 'The app is no longer registered.' });
  const full = await keysFull(deps, session.userId, app.id);
  return sendPage(
    reply.headers(consentHeaders(request.redirectUri)),
    200,
    renderConsentPage(app, request, signedInAs(deps, session), full),
  );
}

/** The path and query of this request on the page, for the diet app to send the person back to. */
function returnPathOf(request: FastifyRequest): string {
  return request.url.startsWith('/') ? request.url : AUTHORIZE_PATH;
}

/** A person not signed in: to the diet app's sign-in (--app-sign-in-url) with the way back, or a page saying so. */
function askToSignIn(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  if (deps.appSignInUrl !== undefined) {
    const url = new URL(deps.appSignInUrl);
    url.searchParams.set('return', returnPathOf(request));
    return reply.code(303).header('location', url.href).send();
  }
  return sendPage(
    reply,
    401,
    renderMessagePage(
      'Sign in to the app first',
      [
        'An app asks to read your meals. Sign in to the diet app, then ask the app to connect again.',
        renderWayBack(deps.appHomeUrl),
      ],
      signedOut(deps),
    ),
  );
}

/**
 * The checks of the consent form: the session's CSRF token, and this page as its origin. The
 * consent page sends no Referer (page-headers.ts), so a browser's post from it says `Origin:
 * null`; then Sec-Fetch-Site, which no page can set, must say it came from this origin.
 */
function isConsentPost(deps: PageDeps, request: FastifyRequest, session: Session): boolean {
  const origin = request.headers.origin;
  const fromHere =
    origin === 'null' || origin === undefined
      ? request.headers['sec-fetch-site'] === 'same-origin'
      : pageOrigins(deps, request).has(origin);
  return fromHere && isValidCsrfToken(session.id, formOf(request).get(CSRF_FIELD));
}

export function registerOAuthRoutes(app: FastifyInstance, deps: PageDeps): void {
  app.get(AUTHORIZE_PATH, async (request, reply) => {
    const check = await checked(deps, queryOf(request));
    if (check.kind !== 'valid') return answerFault(deps, reply, check);
    const session = await deps.sessions.current(request.headers.cookie, Date.now());
    if (session === undefined) return askToSignIn(deps, request, reply);
    return showConsent(deps, reply, session, check.request);
  });

  app.post(AUTHORIZE_PATH, async (request, reply) => {
    const session = await deps.sessions.current(request.headers.cookie, Date.now());
    if (session === undefined) return askToSignIn(deps, request, reply);
    if (!isConsentPost(deps, request, session)) {
      refuseForm(reply, signedInAs(deps, session));
      return reply;
    }
    const form = formOf(request);
    const check = await checked(deps, form);
    if (check.kind !== 'valid') return answerFault(deps, reply, check);
    const { redirectUri, state } = check.request;
    if (form.get('decision') !== 'allow') {
      const denied = { error: 'access_denied', error_description: 'The person did not allow it.', state };
      return reply
        .code(303)
        .header('location', redirectWith(redirectUri, deps.issuer, denied))
        .send();
    }
    if (await keysFull(deps, session.userId, check.request.appId))
      return showConsent(deps, reply, session, check.request);
    const code = newAuthorizationCode();
    const now = Date.now();
    await deps.storage.codes.createAuthorizationCode({
      digest: digestAuthorizationCode(code),
      appId: check.request.appId,
      userId: session.userId,
      redirectUri,
      codeChallenge: check.request.codeChallenge,
      scope: check.request.scope,
      createdAt: now,
      expiresAt: now + AUTHORIZATION_CODE_TTL_MS,
    });
    return reply
      .code(303)
      .header('location', redirectWith(redirectUri, deps.issuer, { code, state }))
      .send();
  });
}
