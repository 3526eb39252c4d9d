import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { buildHostOpenApiDocument } from '../../src/host-api/host-openapi.js';
import { issueServiceToken } from '../../src/keys/issue-service-token.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import {
  type AnswerChecker,
  type AnswerPlace,
  type CheckedAnswer,
  createAnswerChecker,
} from '../http/openapi-answer-check.js';
import {
  makeMeal,
  newUserId,
  request,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/server.js';

// Every case the host API's OpenAPI document describes, sent to the running service's host
// listener over TLS, and its answer checked against the document it serves at
// /host/v1/openapi.json (http/openapi-answer-check.ts): the status, every header (described,
// required, matching its schema) and the body. A 500 is a bug and never provoked; a 503 of the
// store down is the public listener's rule, checked there.

export const MEAL = '/host/v1/users/{userId}/meals/{mealId}';
export const IMPORT = '/host/v1/users/{userId}/meals/import';
export const KEYS = '/host/v1/users/{userId}/keys';
export const WEBHOOKS = '/host/v1/users/{userId}/webhooks';
export const JSON_TYPE = { 'content-type': 'application/json' };
export const NDJSON_TYPE = { 'content-type': 'application/x-ndjson' };

export interface Sent {
  readonly method?: string;
  readonly path: string;
  /** The service token by default; null for none, or another credential. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export const json = (value: unknown) => JSON.stringify(value);
export const field = (res: TestResponse, name: string) => (res.json as Record<string, unknown>)[name];
/** A meal id no other case uses: ids are unique across users. */
export const newMealId = () => newUserId('meal');

/** A meal record for PUT: the import record without its id. */
export function record(overrides: Record<string, unknown> = {}): string {
  const { id: _id, ...fields } = makeMeal(undefined, overrides);
  return json(fields);
}

/**
 * A server with the host API for the tests of one file, started before them with a service
 * token, and the checker of the document it serves; stopped after them.
 */
export function useHostConformance() {
  let server: TestServer;
  let store: Storage;
  let checker: AnswerChecker;
  let token: string;
  let paths: Record<string, { description: string }>;

  before(async () => {
    server = await startTestServer({ hostApiPort: 0 });
    assert.ok(server.hostApi, 'the host API listens');
    store = await openStorage(server.db);
    const issued = await issueServiceToken(store.serviceTokens, 'openapi conformance', Date.now());
    assert.ok(issued.ok);
    token = issued.token;
    const served = await request(server.hostApi, { path: '/host/v1/openapi.json' });
    assert.equal(served.status, 200);
    // The linted document (host-openapi-lint.test.ts) is the one served.
    assert.equal(
      served.text,
      `${JSON.stringify(buildHostOpenApiDocument(PACKAGE_VERSION))}\n`,
      'the document, and a final newline',
    );
    const document = served.json as Record<string, unknown>;
    paths = document['paths'] as typeof paths;
    checker = createAnswerChecker(document);
  });

  after(async () => {
    await store?.close();
    await server?.stop();
  });

  const hostApi = () => {
    assert.ok(server.hostApi, 'the host API listens');
    return server.hostApi;
  };

  function expectDocumented(place: AnswerPlace, method: string, res: CheckedAnswer, status: number, label: string) {
    assert.equal(res.status, status, `[${label}] status: ${res.text.slice(0, 300)}`);
    assert.deepEqual(checker.problems(place, method, res), [], `[${label}] the answer matches the document`);
  }

  /** Sends `sent` to the host API and checks the answer, documented at `path` (or without an operation). */
  async function check(path: string | 'without-operation', sent: Sent, status: number, label: string) {
    const method = sent.method ?? 'GET';
    const credential = sent.token === undefined ? token : sent.token;
    const res = await request(hostApi(), {
      method,
      path: sent.path,
      ...(credential === null ? {} : { key: credential }),
      ...(sent.headers === undefined ? {} : { headers: sent.headers }),
      body: sent.body,
    });
    expectDocumented(path === 'without-operation' ? path : { method, path }, method, res, status, label);
    return res;
  }

  return {
    check,
    expectDocumented,
    hostApi,
    /** A second handle on the server's store. */
    store: () => store,
    token: () => token,
    /** The paths of the document served. */
    paths: () => paths,
  };
}
