import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Storage } from '../storage/storage.js';
import { CSRF_FIELD, csrfTokenFor, isSameOriginPost, isValidCsrfToken } from './csrf.js';
import type { Flashes } from './flash.js';
import { HTML_CONTENT_TYPE } from './page-headers.js';
import { type Html } from './html.js';
import { renderMessagePage, renderWayBack, type SignedIn, type SignedOut } from './pages/layout.js';
import {
  readCookie,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  type Session,
  type Sessions,
} from './sessions.js';

/** What the page's routes share. */
export interface PageDeps {
  readonly storage: Storage;
  readonly sessions: Sessions;
  /** A form's one-time result, kept for the page its redirect opens. */
  readonly flashes: Flashes;
  readonly dailyLimit: number;
  /** The API's base URL, for the quick start. */
  readonly apiUrl: string;
  /** True when the page's listener speaks TLS: its own origin is https://. */
  readonly tls: boolean;
  /** The page's address as browsers see it (--public-url), when it is not the listener's own. */
  readonly publicOrigin: string | undefined;
  /** The diet app's page (--app-home-url), where the page's way back leads; undefined: said in words. */
  readonly appHomeUrl: string | undefined;
  /** Connect's issuer (--api-public-url, else the API's own address): the `iss` of every answer to an app. */
  readonly issuer: string;
  /** The diet app's sign-in page (--app-sign-in-url), for a consent asked of a person not signed in. */
  readonly appSignInUrl: string | undefined;
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', HTML_CONTENT_TYPE).send(body);
}

/** The form fields of a POST (app-page.ts parses every form into URLSearchParams), or none. */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

export function signedInAs(deps: PageDeps, session: Session): SignedIn {
  return {
    userId: session.userId,
    csrf: csrfTokenFor(session.id),
    appHome: deps.appHomeUrl,
    session: {
      endsAt: session.expiresAt,
      endsIn: session.expiresAt - Date.now(),
      canStayLonger: session.expiresAt < session.endsAtLatest,
    },
  };
}

export function signedOut(deps: PageDeps): SignedOut {
  return { appHome: deps.appHomeUrl };
}

/** A page for a person with no session (a spent link, signed out): what happened, and the way back to a new link. */
export function sendSignedOutPage(
  deps: PageDeps,
  reply: FastifyReply,
  status: number,
  title: string,
  lines: readonly (string | Html)[],
): FastifyReply {
  return sendPage(reply, status, renderMessagePage(title, [...lines, renderWayBack(deps.appHomeUrl)], signedOut(deps)));
}

/** The session of a request, or a 401 page saying how to sign in again (and undefined). */
export async function requireSession(
  deps: PageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Session | undefined> {
  const session = await deps.sessions.current(request.headers.cookie, Date.now());
  if (session === undefined) {
    // The cookie outlives an unused session (sessions.ts): with one, the session has ended.
    const ended = readCookie(request.headers.cookie, SESSION_COOKIE) !== undefined;
    const [idleMinutes, maxHours] = [SESSION_IDLE_MS / 60_000, SESSION_MAX_MS / 3_600_000];
    sendSignedOutPage(deps, reply, 401, 'You are signed out', [
      ended
        ? `Your session has ended: a session ends ${idleMinutes} minutes after the page was last used, and ${maxHours} hours after signing in.`
        : 'This browser has not signed in.',
    ]);
  }
  return session;
}

/** The origins this page has for a request: its own, as the request's Host names it, and --public-url's. */
export function pageOrigins(deps: PageDeps, request: FastifyRequest): ReadonlySet<string> {
  const origins = new Set([`${deps.tls ? 'https' : 'http'}://${request.headers.host ?? ''}`]);
  if (deps.publicOrigin !== undefined) origins.add(deps.publicOrigin);
  return origins;
}

/** True when a POST comes from this page's own origin (csrf.ts). */
export function isFromThisPage(deps: PageDeps, request: FastifyRequest): boolean {
  return isSameOriginPost(request.headers, pageOrigins(deps, request));
}

/**
 * The checks of every state-changing form of a signed-in page: same origin, and the CSRF token
 * of this session. On failure a 403 page is sent and false returned.
 */
export function checkForm(deps: PageDeps, request: FastifyRequest, reply: FastifyReply, session: Session): boolean {
  if (isFromThisPage(deps, request) && isValidCsrfToken(session.id, formOf(request).get(CSRF_FIELD))) return true;
  refuseForm(reply, signedInAs(deps, session));
  return false;
}

export function refuseForm(reply: FastifyReply, visitor: SignedIn | SignedOut): void {
  sendPage(
    reply,
    403,
    renderMessagePage(
      'This form was refused',
      [
        'It did not come from this page, or its security token is missing or out of date. Nothing was changed.',
        'Go back, reload the page and try again.',
      ],
      visitor,
    ),
  );
}
