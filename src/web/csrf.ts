import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * CSRF defence of every state-changing form (OWASP's "signed double submit" and
 * "verifying origin with standard headers"):
 * - each form of a signed-in page carries a token derived from the session id by HMAC; the id
 *   lives only in an HttpOnly cookie, so another site can neither read nor compute it;
 * - every POST must come from the page's own origin (Origin, else Sec-Fetch-Site), which also
 *   guards the sign-in form, sent before there is a session;
 * - the session cookie is SameSite=Lax, so a cross-site form post carries no session anyway.
 */
export const CSRF_FIELD = 'csrf';

export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId).update('meal-export app page form').digest('base64url');
}

export function isValidCsrfToken(sessionId: string, token: string | null): boolean {
  if (token === null) return false;
  const expected = Buffer.from(csrfTokenFor(sessionId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * True when a POST comes from one of `origins` (the page's own, as the browser names it). A
 * browser sends Origin with every POST; without one, Sec-Fetch-Site must say same-origin.
 */
export function isSameOriginPost(headers: IncomingHttpHeaders, origins: ReadonlySet<string>): boolean {
  const origin = headers.origin;
  if (origin !== undefined) return origins.has(origin);
  return headers['sec-fetch-site'] === 'same-origin';
}
