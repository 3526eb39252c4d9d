import type { FastifyBaseLogger } from 'fastify';
import type { AnswerOrder } from './answer-order.js';
import { writeErrorAnswer } from '../listener/error-answer.js';
import { MAX_URL_BYTES, malformed, preAuthRefusal } from './gatekeeper.js';
import { commonHeaders } from '../listener/json-response.js';
import type { RequestListener } from './meals-endpoint.js';
import { pathOf } from '../listener/request-report.js';
import { MEALS_PATH, originFormOf } from './public-routes.js';
import type { RequestReport } from '../listener/request-report.js';

export interface FrontDoorDeps {
  /** True when the listener speaks TLS (HSTS is sent then). */
  readonly tls: boolean;
  /** GET and HEAD /v1/meals (http/meals-endpoint.ts). */
  readonly meals: RequestListener;
  /** Fastify, for the other routes. */
  readonly framework: RequestListener;
  readonly log: FastifyBaseLogger;
  readonly report: RequestReport | undefined;
  /** Told of every request, so that the parser's refusals wait for the answers in flight. */
  readonly answerOrder: AnswerOrder;
}

/**
 * The first code to see every request of the public listener (docs/errors.md): it runs
 * the gatekeeper's checks on the request as it came, before any framework decodes or routes
 * it, and answers a refusal itself; then /v1/meals goes to its endpoint and the rest to
 * Fastify, with the headers every response carries already set (section 1). A target in
 * absolute form is turned into its origin-form here, once, so every later reader of
 * `request.url` (routing, the query, the logs) sees `/path?query`.
 */
export function createFrontDoor(deps: FrontDoorDeps): RequestListener {
  const { tls, meals, framework, log, report, answerOrder } = deps;
  const headers = Object.entries(commonHeaders(tls));
  return function frontDoor(request, response) {
    answerOrder.note(request, response);
    const asSent = request.url ?? '/';
    // An oversized target stays as sent: its size is refused first (414), whatever its form.
    const target = asSent.length > MAX_URL_BYTES ? asSent : originFormOf(asSent);
    if (target !== undefined) request.url = target;
    const refusal = target === undefined ? malformed() : preAuthRefusal(request);
    if (refusal !== undefined) {
      const started = report === undefined ? 0 : performance.now();
      writeErrorAnswer(response, refusal, tls);
      if (report !== undefined) {
        response.once('finish', () =>
          report(log, request.method, request.url ?? '', response.statusCode, performance.now() - started),
        );
      }
      return;
    }
    if (pathOf(request.url ?? '/') === MEALS_PATH) {
      meals(request, response);
      return;
    }
    for (const [name, value] of headers) response.setHeader(name, value);
    framework(request, response);
  };
}
