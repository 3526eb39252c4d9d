/**
 * Headers of every app-page response: a strict Content-Security-Policy (scripts and
 * styles from this origin's files only, nothing inline; requests from script to this origin
 * only, where a test call's result is asked for; no framing), no caching of pages that may show
 * a key, and no Referer carrying a login link's token to another site.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The consent page's own headers (docs/connect.md#what-the-person-sees): its form's answer
 * redirects to the app, and browsers hold a form's redirects to `form-action` too, so the
 * app's redirect URI's origin is allowed there, for this page alone; and no Referer at all, as
 * its URL holds the request's state.
 */
export function consentHeaders(redirectUri: string): Readonly<Record<string, string>> {
  const origin = new URL(redirectUri).origin;
  return {
    'content-security-policy': CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${origin}`),
    'referrer-policy': 'no-referrer',
  };
}

export function pageHeaders(tls: boolean): Readonly<Record<string, string>> {
  return {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on form
    // posts (Fetch, "serializing a request origin"), which would defeat the origin check.
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
    ...(tls ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}

export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';
