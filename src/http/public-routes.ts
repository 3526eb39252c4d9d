/**
 * The routes of the public listener, in one place (CONTRACT.md sections 2 and 6): static paths,
 * each answering GET and HEAD only. The gatekeeper refuses every other path and method, the
 * front door sends /v1/meals to its own endpoint, Fastify registers the others, and /metrics
 * labels requests by them.
 */
export const MEALS_PATH = '/v1/meals';
export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const OPENAPI_PATH = '/v1/openapi.json';

export const PUBLIC_PATHS: ReadonlySet<string> = new Set([MEALS_PATH, HEALTH_PATH, READY_PATH, OPENAPI_PATH]);

/** The methods every public route answers (the `Allow` of a 405). */
export const PUBLIC_METHODS = 'GET, HEAD';

/** The path of a request target, query aside (undecoded, as it came). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
