import { parsedUrl } from './parsed-url.js';

/**
 * What an app is registered with (docs/host-api.md#apps-connect), and the rules each field
 * meets, as pure functions: a fault is a value naming the field, never a throw, so the host
 * API, `apps create` and `meal-export/host` refuse the same registrations in their own words.
 */

export const MAX_APP_NAME_LENGTH = 100;
export const MAX_REDIRECT_URIS = 10;
export const MAX_APP_URL_LENGTH = 2048;

export interface AppRegistration {
  /** Trimmed. */
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly homepageUrl: string | null;
}

/** A registration field at fault: its name as the host API's body spells it, and why. */
export interface AppFault {
  readonly param: 'name' | 'redirectUris' | 'homepageUrl';
  readonly message: string;
}

export type AppRegistrationResult =
  { readonly ok: true; readonly registration: AppRegistration } | { readonly ok: false; readonly fault: AppFault };

// A URL is compared character for character when the grant comes: no space, control character
// or backslash, which the URL parser would drop, encode or read as `/`, may hide in one.
const UNSAFE_CHARACTER_RE = /[\s\p{Cc}\\]/u;
// RFC 8252 §7.3: the loopback interface, by its literal addresses or `localhost`, any port.
const LOOPBACK_RE = /^http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost)(?::[0-9]{1,5})?(?:[/?]|$)/i;
// The host follows `//` at once: `https:///x` and `https:x`, which a parser reads as `https://x`, are refused.
const HTTPS_RE = /^https:\/\/[^/?#]/i;

/** Why the name cannot be an app's (after trimming), or undefined. */
export function appNameFault(name: string): string | undefined {
  if (name === '' || name.length > MAX_APP_NAME_LENGTH || /\p{Cc}/u.test(name)) {
    return `name must be 1 to ${MAX_APP_NAME_LENGTH} characters of text.`;
  }
  return undefined;
}

/**
 * Why the text cannot be a redirect URI, or undefined: an absolute `https://` URL without a
 * fragment (RFC 6749 §3.1.2), or plain `http://` to the loopback interface with any port, for
 * a developer's machine (RFC 8252 §7.3). The host is read from the text as written, so that
 * `http://0x7f.0.0.1`, which a parser would make 127.0.0.1, is refused.
 */
export function redirectUriFault(uri: string): string | undefined {
  if (uri.length > MAX_APP_URL_LENGTH) return `A redirect URI is at most ${MAX_APP_URL_LENGTH} characters.`;
  if (UNSAFE_CHARACTER_RE.test(uri)) return 'A redirect URI holds no space, control character or backslash.';
  if (uri.includes('#')) return 'A redirect URI has no fragment (#).';
  const url = parsedUrl(uri);
  const https = HTTPS_RE.test(uri) && url?.protocol === 'https:' && url.hostname !== '';
  const loopback = LOOPBACK_RE.test(uri) && url?.protocol === 'http:';
  if (!https && !loopback) {
    return 'A redirect URI is an https:// URL, or http:// to 127.0.0.1, [::1] or localhost.';
  }
  if (url?.username !== '' || url.password !== '') return 'A redirect URI holds no user name or password.';
  return undefined;
}

/** Why the list cannot be an app's redirect URIs, or undefined: 1 to 10, each as redirectUriFault says. */
export function redirectUrisFault(uris: readonly string[]): string | undefined {
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    return `redirectUris must list 1 to ${MAX_REDIRECT_URIS} URIs.`;
  }
  for (const uri of uris) {
    const fault = redirectUriFault(uri);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

/** Why the text cannot be an app's homepage, or undefined: an absolute https:// URL. */
export function homepageUrlFault(url: string): string | undefined {
  const parsed = parsedUrl(url);
  if (
    url.length > MAX_APP_URL_LENGTH ||
    UNSAFE_CHARACTER_RE.test(url) ||
    !HTTPS_RE.test(url) ||
    parsed?.protocol !== 'https:' ||
    parsed.hostname === '' ||
    parsed.username !== '' ||
    parsed.password !== ''
  ) {
    return `homepageUrl must be an https:// URL of at most ${MAX_APP_URL_LENGTH} characters.`;
  }
  return undefined;
}

const fault = (param: AppFault['param'], message: string): AppRegistrationResult => ({
  ok: false,
  fault: { param, message },
});

/**
 * A registration from what a caller sent (a JSON body, flags, the host module's arguments):
 * the name trimmed, the homepage absent or null as null; the first field at fault otherwise,
 * in the order name, redirectUris, homepageUrl.
 */
export function appRegistrationOf(input: {
  readonly name: unknown;
  readonly redirectUris: unknown;
  readonly homepageUrl?: unknown;
}): AppRegistrationResult {
  if (typeof input.name !== 'string') return fault('name', 'name must be a string.');
  const name = input.name.trim();
  const nameFault = appNameFault(name);
  if (nameFault !== undefined) return fault('name', nameFault);
  const uris = input.redirectUris;
  if (!Array.isArray(uris) || !uris.every((uri): uri is string => typeof uri === 'string')) {
    return fault('redirectUris', 'redirectUris must be an array of strings.');
  }
  const urisFault = redirectUrisFault(uris);
  if (urisFault !== undefined) return fault('redirectUris', urisFault);
  const homepage = input.homepageUrl ?? null;
  if (homepage !== null && typeof homepage !== 'string') return fault('homepageUrl', 'homepageUrl must be a string.');
  const homepageFault = homepage === null ? undefined : homepageUrlFault(homepage);
  if (homepageFault !== undefined) return fault('homepageUrl', homepageFault);
  return { ok: true, registration: { name, redirectUris: [...uris], homepageUrl: homepage } };
}
