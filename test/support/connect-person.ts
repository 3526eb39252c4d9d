import assert from 'node:assert/strict';
import { type PageResponse, pageRequest } from '../web/page-client.js';
import { type HostApiServer, hostCall } from './host-api.js';

/**
 * The person's side of Connect (docs/connect.md#what-the-person-sees) as a browser sends it, for
 * tests that are not about the browser: signed in by a sign-in link, the consent page read, its
 * form posted back with the page's cookie, CSRF token and Origin.
 */

/** The session cookie of `userId` on the page at `app`, signed in by a link the host API made. */
export async function signedInCookie(server: HostApiServer, app: string, userId: string): Promise<string> {
  const link = await hostCall(server, {
    method: 'POST',
    path: `/host/v1/users/${encodeURIComponent(userId)}/login-links`,
  });
  const token = new URL((link.json as { url: string }).url).searchParams.get('token') ?? '';
  const signedIn = await pageRequest(app, {
    path: '/login',
    headers: { origin: new URL(app).origin },
    form: { token },
  });
  return String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
}

/** A page's hidden form fields, as a browser posts them back (the HTML's escapes undone). */
export function formFields(page: PageResponse): Record<string, string> {
  return Object.fromEntries(
    [...page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
      m[1] ?? '',
      (m[2] ?? '')
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'"),
    ]),
  );
}

/** Where a 303 sends the browser. */
export function redirectOf(res: PageResponse): URL {
  assert.equal(res.status, 303, res.text);
  return new URL(String(res.headers.location));
}

/** The person, signed in with `cookie`, opens the authorization request at `path` and presses Allow: where they are sent back. */
export async function allowOnPage(app: string, cookie: string, path: string): Promise<URL> {
  const consent = await pageRequest(app, { path, headers: { cookie } });
  assert.equal(consent.status, 200, consent.text);
  const allowed = await pageRequest(app, {
    path: '/oauth/authorize',
    headers: { cookie, origin: new URL(app).origin },
    form: { ...formFields(consent), decision: 'allow' },
  });
  return redirectOf(allowed);
}
