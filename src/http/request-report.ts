import type { FastifyBaseLogger } from 'fastify';
import { logRequest } from '../logger.js';
import { PUBLIC_PATHS, pathOf } from './public-routes.js';

/** What /metrics counts per request (metrics/service-metrics.ts implements it). */
export interface RequestMetrics {
  /** `route`: the route template; `status`: null when the client left before the answer was written. */
  request(route: string, status: number | null, seconds: number): void;
}

/** Called once per request answered, by Fastify's onResponse hook and by the meals endpoint alike. */
export type RequestReport = (
  log: FastifyBaseLogger,
  method: string | undefined,
  url: string,
  status: number | null,
  ms: number,
) => void;

export interface RequestReportDeps {
  /** One log line per request (info level and below). */
  readonly logRequests: boolean;
  readonly metrics: RequestMetrics | undefined;
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

/** The one piece of code that logs and counts every request, whichever path answered it. */
export function createRequestReport(deps: RequestReportDeps): RequestReport | undefined {
  const { logRequests, metrics } = deps;
  if (!logRequests && metrics === undefined) return undefined;
  return (log, method, url, status, ms) => {
    if (logRequests) logRequest(log, method, url, status, ms);
    metrics?.request(routeOf(url), status, ms / 1000);
  };
}
