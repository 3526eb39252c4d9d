import { type Answer, type Component, component, componentRef, type Example } from '../openapi/answers.js';
import {
  BODY_MISSING,
  BODY_NOT_JSON,
  BODY_OF_ANOTHER_TYPE,
  badRequest,
  BODY_NOT_UTF8,
  IMPORT_NOT_JSON_LINES,
  jsonTooLarge,
  operationOf,
  REFUSALS_OF_EVERY_REQUEST,
  REFUSALS_WITHOUT_TOKEN,
  UNKNOWN_QUERY_PARAMETER,
} from './host-openapi-answers.js';
import {
  allowOf,
  type BodyDeclaration,
  type HostMethod,
  type HostOperation,
  type HostResource,
  type PathParameter,
  type QueryParameter,
} from './host-route-table.js';

/**
 * The host API's document made from its table of resources (host-route-table.ts): a path item
 * per resource, an operation per method, and the answers the declarations imply (the 400 of
 * the ids, query and body a method reads, the 413 of its body) beside the method's own.
 */

/** The 400 and 413 of what a method reads. */
function readingRefusals(resource: HostResource, operation: HostOperation): Readonly<Record<string, Answer>> {
  const checked = resource.parameters.flatMap(({ name, rule }) => (rule === undefined ? [] : [{ name, rule }]));
  const query = operation.query ?? [];
  const clauses: string[] = [];
  const examples: Example[] = [];
  if (checked.length > 0) {
    const names = checked.map((parameter) => parameter.name);
    clauses.push(
      names.length === 1
        ? `${names[0]} breaks its rules`
        : `a path id breaks its rules (error.param: ${names.join(' or ')})`,
    );
    examples.push(...checked.map(({ rule }) => rule.example));
  }
  clauses.push(...query.map((parameter) => parameter.fault));
  examples.push(...query.map((parameter) => parameter.faultExample));
  clauses.push(
    query.length === 0
      ? 'a query parameter is given (the path takes none)'
      : 'another query parameter is given (error.param names it)',
  );
  examples.push(UNKNOWN_QUERY_PARAMETER);
  let description = `invalid_parameter: ${clauses.join(', or ')}.`;
  const body = operation.body;
  const answers: Record<string, Answer> = {};
  if (body !== undefined && body.kind !== 'json-lines') {
    const missing = body.kind === 'record' || body.required;
    description += ` Or bad_request: the body is not JSON${missing ? ', is missing' : ''}, is not UTF-8, or is not sent as application/json.`;
    examples.push(BODY_NOT_JSON, ...(missing ? [BODY_MISSING] : []), BODY_NOT_UTF8, BODY_OF_ANOTHER_TYPE);
    answers['413'] = jsonTooLarge;
  }
  if (body?.kind === 'json-lines') {
    description += ' Or bad_request: the body is not UTF-8, or not sent as application/x-ndjson or application/jsonl.';
    examples.push(IMPORT_NOT_JSON_LINES, BODY_NOT_UTF8);
    answers['413'] = body.tooLarge;
  }
  answers['400'] = badRequest(description, ...examples);
  return answers;
}

function requestBodyOf(body: BodyDeclaration | undefined): object | undefined {
  if (body === undefined) return undefined;
  if (body.kind === 'json-lines') return { required: true, content: body.content };
  return {
    required: body.kind === 'record' || body.required,
    content: {
      'application/json': { schema: componentRef(body.component), examples: body.examples },
    },
  };
}

/** A path or query parameter as the document writes it: path ids are required, query parameters not. */
const parameterDocument = (
  place: 'path' | 'query',
  { name, description, schema, example }: PathParameter | QueryParameter<unknown>,
) => ({ name, in: place, required: place === 'path', description, schema, example });

/** A method's operations in the document: itself, and a GET's HEAD. */
function operationsOf(resource: HostResource, method: HostMethod, operation: HostOperation): Record<string, object> {
  const authenticated = resource.authenticated ?? true;
  const query = (operation.query ?? []).map((parameter) => parameterDocument('query', parameter));
  const requestBody = requestBodyOf(operation.body);
  const words = {
    operationId: operation.operationId,
    tags: [resource.tag],
    summary: operation.summary,
    description: operation.description,
    ...(authenticated ? {} : { security: [] }),
    ...(query.length === 0 ? {} : { parameters: query }),
    ...(requestBody === undefined ? {} : { requestBody }),
    answers: { ...readingRefusals(resource, operation), ...operation.answers },
  };
  const refusals = authenticated ? REFUSALS_OF_EVERY_REQUEST : REFUSALS_WITHOUT_TOKEN;
  const documented = { [method.toLowerCase()]: operationOf(words, true, refusals) };
  if (method !== 'GET' || operation.headId === undefined) return documented;
  const head = { ...words, operationId: operation.headId, summary: `${operation.summary} Without the body.` };
  return { ...documented, head: operationOf(head, false, refusals) };
}

/** A resource's path item, its description ending with what another method is answered. */
export function pathItemOf(resource: HostResource): object {
  const operations = Object.entries(resource.operations).flatMap(([method, operation]) =>
    operation === undefined ? [] : Object.entries(operationsOf(resource, method as HostMethod, operation)),
  );
  const parameters = resource.parameters.map((parameter) => parameterDocument('path', parameter));
  return {
    description: `${resource.description} Any other method: 405 method_not_allowed with Allow: ${allowOf(resource).join(', ')} (x-responses-without-operation).`,
    ...(parameters.length === 0 ? {} : { parameters }),
    ...Object.fromEntries(operations),
  };
}

/** The components a method's body and answers name. */
function componentsOf(operation: HostOperation): Component[] {
  const { body } = operation;
  const read =
    body === undefined
      ? []
      : body.kind === 'json-lines'
        ? body.uses
        : body.kind === 'record'
          ? [body.component]
          : [component(body.component, body.schema)];
  const answered = Object.values(operation.answers).flatMap(({ schema }) =>
    typeof schema === 'string' ? [] : [schema],
  );
  return [...read, ...answered];
}

/** The components a resource's methods name: the document's components are these, collected. */
export function componentsOfResource(resource: HostResource): Component[] {
  return Object.values(resource.operations).flatMap((operation) =>
    operation === undefined ? [] : componentsOf(operation),
  );
}
