import type { FastifyInstance } from 'fastify';
import { pagePathFault } from '../domain/page-path.js';
import { LOGIN_PATH } from './login-link.js';
import {
  type PageDeps,
  checkForm,
  formOf,
  isFromThisPage,
  refuseForm,
  requireSession,
  sendPage,
  sendSignedOutPage,
  signedOut,
} from './page-context.js';
import { renderLoginPage } from './pages/login-page.js';
import { clearedSessionCookie, sessionCookie } from './sessions.js';

/**
 * Where "Stay signed in" returns to: one of the page's own paths, never another site (`//host`),
 * with its query as the browser sent it (percent-encoded), so a page showing a result or a CSV
 * range comes back as it was.
 */
const BACK_PATH_RE = /^\/(?!\/)[\w./-]*(?:\?[\w.~%!$&'()*+,;=:@/?-]*)?$/;

/** Sign-in by one-time link, and sign-out. */
export function registerSignInRoutes(app: FastifyInstance, deps: PageDeps): void {
  // Opening the link changes nothing: it shows the button that signs in (pages/login-page.ts).
  app.get<{ Querystring: { token?: string; next?: string } }>(LOGIN_PATH, (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const next = typeof request.query.next === 'string' ? request.query.next : undefined;
    if (token === '') {
      return sendSignedOutPage(deps, reply, 400, 'This sign-in link is incomplete', []);
    }
    return sendPage(reply, 200, renderLoginPage(token, next, signedOut(deps)));
  });

  app.post(LOGIN_PATH, async (request, reply) => {
    // No session yet, so no CSRF token: the origin check keeps other sites from signing a
    // browser in to their own account (login CSRF).
    if (!isFromThisPage(deps, request)) return refuseForm(reply, signedOut(deps));
    const now = Date.now();
    const session = await deps.sessions.signIn(formOf(request).get('token') ?? '', now);
    if (session === undefined) {
      return sendSignedOutPage(deps, reply, 400, 'This sign-in link cannot be used', [
        'It was already used, or it is more than 15 minutes old. Each link works once.',
      ]);
    }
    // A browser signing in again leaves its previous session behind: end it.
    const previous = await deps.sessions.current(request.headers.cookie, now);
    if (previous !== undefined) await deps.sessions.signOut(previous);
    // A link made with `next` lands there, a path of this page only, checked again here.
    const next = formOf(request).get('next');
    const landing = next !== null && pagePathFault(next) === undefined ? next : '/';
    return reply.code(303).header('set-cookie', sessionCookie(session, now)).header('location', landing).send();
  });

  app.post('/logout', async (request, reply) => {
    const session = await deps.sessions.current(request.headers.cookie, Date.now());
    if (session !== undefined) {
      if (!checkForm(deps, request, reply, session)) return reply;
      await deps.sessions.signOut(session);
    }
    reply.header('set-cookie', clearedSessionCookie());
    return sendSignedOutPage(deps, reply, 200, 'You are signed out', []);
  });

  // "Stay signed in" (docs/app.md#staying-signed-in): the session's end moved on now, then back
  // to the page it was asked from.
  app.post('/session', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined || !checkForm(deps, request, reply, session)) return reply;
    await deps.sessions.stayLonger(session, Date.now());
    const back = formOf(request).get('back') ?? '';
    return reply
      .code(303)
      .header('location', BACK_PATH_RE.test(back) ? back : '/')
      .send();
  });
}
