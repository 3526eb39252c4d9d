import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Storage } from '../storage/storage.js';
import { CSRF_FIELD, csrfTokenFor, isSameOriginPost, isValidCsrfToken } from './csrf.js';
import type { Flashes } from './flash.js';
import { HTML_CONTENT_TYPE } from './page-headers.js';
import { renderMessagePage, type SignedIn } from './pages/layout.js';
import type { Session, Sessions } from './sessions.js';

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
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', HTML_CONTENT_TYPE).send(body);
}

/** The form fields of a POST (form-body.ts), or none. */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

export function signedInAs(session: Session): SignedIn {
  return { userId: session.userId, csrf: csrfTokenFor(session.id) };
}

/** The session of a request, or a 401 page saying how to sign in again (and undefined). */
export async function requireSession(
  deps: PageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Session | undefined> {
  const session = await deps.sessions.current(request.headers.cookie, Date.now());
  if (session === undefined) {
    sendPage(
      reply,
      401,
      renderMessagePage('You are signed out', [
        'Your session has ended, or this browser has not signed in.',
        'Open the app and choose Resources, then Export (API, CSV), to sign in again.',
      ]),
    );
  }
  return session;
}

/** True when a POST comes from this page's own origin (csrf.ts). */
export function isFromThisPage(deps: PageDeps, request: FastifyRequest): boolean {
  const origins = new Set([`${deps.tls ? 'https' : 'http'}://${request.headers.host ?? ''}`]);
  if (deps.publicOrigin !== undefined) origins.add(deps.publicOrigin);
  return isSameOriginPost(request.headers, origins);
}

/**
 * The checks of every state-changing form of a signed-in page: same origin, and the CSRF token
 * of this session. On failure a 403 page is sent and false returned.
 */
export function checkForm(deps: PageDeps, request: FastifyRequest, reply: FastifyReply, session: Session): boolean {
  if (isFromThisPage(deps, request) && isValidCsrfToken(session.id, formOf(request).get(CSRF_FIELD))) return true;
  refuseForm(reply, signedInAs(session));
  return false;
}

export function refuseForm(reply: FastifyReply, signedIn?: SignedIn): void {
  sendPage(
    reply,
    403,
    renderMessagePage(
      'This form was refused',
      [
        'It did not come from this page, or its security token is missing or out of date. Nothing was changed.',
        'Go back, reload the page and try again.',
      ],
      signedIn,
    ),
  );
}
