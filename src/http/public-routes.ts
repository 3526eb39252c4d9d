import { pathOf } from '../listener/request-report.js';

/**
 * The routes of the public listener, in one place (docs/api.md#the-rest-of-the-transport): static
 * paths, each answering GET and HEAD but Connect's forms, POST. The gatekeeper refuses every other path and method, the
 * front door sends /v1/meals to its own endpoint, Fastify registers the others, and /metrics labels
 * requests by them.
 */
export const MEALS_PATH = '/v1/meals';
export const KEY_PATH = '/v1/key';
export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const OPENAPI_PATH = '/v1/openapi.json';

/** Connect (docs/connect.md): the app's code for a key, a key given back, and the server's metadata (RFC 8414). */
export const OAUTH_TOKEN_PATH = '/oauth/token';
export const OAUTH_REVOKE_PATH = '/oauth/revoke';
export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** The methods the API's own routes answer (the `Allow` of a 405). */
export const PUBLIC_METHODS = 'GET, HEAD';
/** The methods Connect's token and revocation endpoints answer. */
export const OAUTH_FORM_METHODS = 'POST';

/** Every public route, with the methods it answers. */
export const PUBLIC_ROUTES: ReadonlyMap<string, string> = new Map([
  [MEALS_PATH, PUBLIC_METHODS],
  [KEY_PATH, PUBLIC_METHODS],
  [HEALTH_PATH, PUBLIC_METHODS],
  [READY_PATH, PUBLIC_METHODS],
  [OPENAPI_PATH, PUBLIC_METHODS],
  [OAUTH_TOKEN_PATH, OAUTH_FORM_METHODS],
  [OAUTH_REVOKE_PATH, OAUTH_FORM_METHODS],
  [OAUTH_METADATA_PATH, PUBLIC_METHODS],
]);

export const PUBLIC_PATHS: ReadonlySet<string> = new Set(PUBLIC_ROUTES.keys());

/** Each route's methods as a set, made once: the gatekeeper asks it of every request. */
export const PUBLIC_ROUTE_METHODS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  [...PUBLIC_ROUTES].map(([path, methods]) => [path, new Set(methods.split(', '))]),
);

// scheme "://" authority, then the path and query (RFC 3986 section 3).
const ABSOLUTE_FORM_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

/**
 * The origin-form (`/path?query`) of a request target. A target in absolute form
 * (`https://host/v1/meals?…`), which a server must accept (RFC 9112 section 3.2.2), is routed
 * and read as its path and query; its host stands in for the Host header, which this service
 * does not otherwise use. Undefined for an http(s) target without a host, which RFC 9110
 * section 4.2.1 says to refuse; any other target (origin-form, `*`, another scheme) as it came.
 */
export function originFormOf(target: string): string | undefined {
  if (target.startsWith('/')) return target;
  const m = ABSOLUTE_FORM_RE.exec(target);
  if (m === null) return target;
  const [, scheme = '', authority = '', rest = ''] = m;
  if (!/^https?$/i.test(scheme)) return target;
  if (authority === '' || authority.startsWith('@') || authority.endsWith('@')) return undefined;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * The route a URL asks for, as /metrics labels it: the template of one of the public routes
 * (all are static paths), or `other` for the rest (404s): never the raw URL, whose query and
 * unknown paths would make one series per request.
 */
export function routeOf(url: string): string {
  const path = pathOf(url);
  return PUBLIC_PATHS.has(path) ? path : 'other';
}
