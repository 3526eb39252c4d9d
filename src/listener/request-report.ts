import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { logRequest } from '../logger.js';

/** What /metrics counts per request (metrics/service-metrics.ts implements it). */
export interface RequestMetrics {
  /** `route`: the route template; `status`: null when the client left before the answer was written. */
  request(route: string, status: number | null, seconds: number): void;
}

/**
 * Called once per request answered, by every listener of the service: Fastify's onResponse hook
 * and the meals endpoint alike. `route` is the label /metrics counts it under (the public
 * listener's: found from the URL); `extra` adds fields to its log line (the host API's token id).
 */
export type RequestReport = (
  log: FastifyBaseLogger,
  method: string | undefined,
  url: string,
  status: number | null,
  ms: number,
  route?: string,
  extra?: Readonly<Record<string, unknown>>,
) => void;

export interface RequestReportDeps {
  /** One log line per request (info level and below). */
  readonly logRequests: boolean;
  readonly metrics: RequestMetrics | undefined;
  /** The log line's message: `request`, or the host API's `host request`. */
  readonly message?: string;
  /** False where a query may carry a secret (the app page's sign-in link): the line has the path only. */
  readonly logQuery?: boolean;
  /** The route label of a URL when a report names none (the public listener's: http/public-routes.ts). */
  readonly routeOf?: (url: string) => string;
}

/** The path of a request target, query aside (undecoded, as it came). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * The one piece of code that logs and counts every request, on every listener (the public one,
 * the host API's, the app page's), whichever path answered it: one line, the URL as received
 * (credentials redacted), and one count.
 */
export function createRequestReport(deps: RequestReportDeps): RequestReport | undefined {
  const { logRequests, metrics } = deps;
  if (!logRequests && metrics === undefined) return undefined;
  const message = deps.message ?? 'request';
  const logged = deps.logQuery === false ? pathOf : (url: string) => url;
  const routeOf = deps.routeOf ?? (() => 'other');
  return (log, method, url, status, ms, route, extra) => {
    if (logRequests) logRequest(log, method, logged(url), status, ms, message, extra);
    metrics?.request(route ?? routeOf(url), status, ms / 1000);
  };
}

/** The label and extra fields of a request's report, for a listener that knows them better than its URL. */
export interface ReportedAs {
  readonly route?: string;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * Reports every answer Fastify gives on a listener (its onResponse hook); with no report (no
 * line and no count wanted) the hook is not registered.
 */
export function reportResponses(
  app: FastifyInstance,
  report: RequestReport | undefined,
  reportedAs: (request: FastifyRequest) => ReportedAs = () => ({}),
): void {
  if (report === undefined) return;
  app.addHook('onResponse', async (request, reply) => {
    const { route, extra } = reportedAs(request);
    report(request.log, request.method, request.url, reply.statusCode, reply.elapsedTime, route, extra);
  });
}
