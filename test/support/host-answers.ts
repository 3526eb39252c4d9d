import { buildHostOpenApiDocument } from '../../src/host-api/host-openapi.js';
import { HOST_RESOURCES } from '../../src/host-api/host-routes.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { type AnswerChecker, type AnswerPlace, createAnswerChecker } from '../http/openapi-answer-check.js';
import type { TestResponse } from './https-request.js';

// Every success a handler of the host API gives in the tests, checked against the schema, status
// and headers its method declares (host-route-table.ts), as the document shows them: so each
// test that calls the host API also holds the handler's answer to its declaration.

let checker: AnswerChecker | undefined;

/** The operation of the document that describes `method` on the path asked. */
function placeOf(method: string, url: string): AnswerPlace | undefined {
  const path = url.split('?')[0] ?? '';
  const asked = method === 'HEAD' ? 'GET' : method;
  // As the router: of the paths that match, the one with the fewest ids (the import's, not the meal's).
  const ids = (template: string) => template.split('{').length;
  const [resource] = HOST_RESOURCES.filter((candidate) =>
    new RegExp(`^${candidate.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  ).sort((a, b) => ids(a.path) - ids(b.path));
  if (resource === undefined) return undefined;
  // The import's path answers the meal's methods for the meal whose id is `import`.
  const documented = Object.hasOwn(resource.operations, asked) ? resource.path : resource.alsoAnswers?.resource.path;
  return documented === undefined ? undefined : { method, path: documented };
}

/** What a success of the host API breaks of its declaration; none for a refusal, whose checks are elsewhere. */
export function declaredAnswerProblems(method: string, url: string, answer: TestResponse): string[] {
  if (answer.status < 200 || answer.status > 299) return [];
  const place = placeOf(method, url);
  if (place === undefined) return [`${method} ${url}: ${answer.status}, but no operation declares it`];
  checker ??= createAnswerChecker(buildHostOpenApiDocument(PACKAGE_VERSION));
  return checker.problems(place, method, answer);
}
