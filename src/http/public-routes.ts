import { pathOf } from '../listener/request-report.js';

/**
 * The routes of the public listener, in one place (docs/api.md#the-rest-of-the-transport): static
 * paths, each answering GET and HEAD only. The gatekeeper refuses every other path and method, the
 * front door sends /v1/meals to its own endpoint, Fastify registers the others, and /metrics labels
 * requests by them.
 */
export const MEALS_PATH = '/v1/meals';
export const KEY_PATH = '/v1/key';
export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const OPENAPI_PATH = '/v1/openapi.json';

export const PUBLIC_PATHS: ReadonlySet<string> = new Set([MEALS_PATH, KEY_PATH, HEALTH_PATH, READY_PATH, OPENAPI_PATH]);

/** The methods every public route answers (the `Allow` of a 405). */
export const PUBLIC_METHODS = 'GET, HEAD';

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
