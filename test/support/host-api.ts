import { cliJson } from './cli.js';
import { declaredAnswerProblems } from './host-answers.js';
import {
  request,
  type ServedApp,
  type StartOptions,
  startTestServer,
  type TestResponse,
  type TestServer,
} from './server.js';

/** A served meal-export with its host API listening, and a service token for it. */
export type HostApiServer<S extends ServedApp = ServedApp> = S & HostApiAccess;

/** The host API of a served meal-export, and a service token for it. */
export interface HostApiAccess {
  /** `https://127.0.0.1:PORT` of the host API. */
  readonly hostUrl: string;
  readonly hostApi: { readonly url: string; readonly host: string; readonly port: number };
  /** A service token made with `service-tokens create`. */
  readonly token: string;
  readonly tokenId: string;
}

/**
 * Starts `serve --host-api-port 0` (and whatever `options` add) and makes a service token on its
 * store; `start`: in a process of its own by default, or startInProcessServer.
 */
export function startHostApiServer(options?: StartOptions): Promise<HostApiServer<TestServer>>;
export function startHostApiServer<S extends ServedApp>(
  options: StartOptions,
  start: (options: StartOptions) => Promise<S>,
): Promise<HostApiServer<S>>;
export async function startHostApiServer(
  options: StartOptions = {},
  start: (options: StartOptions) => Promise<ServedApp> = startTestServer,
): Promise<HostApiServer> {
  const server = await start({ ...options, hostApiPort: 0 });
  const { hostApi } = server;
  if (hostApi === undefined) throw new Error('the host API did not start');
  const made = await cliJson<{ id: string; token: string }>([
    'service-tokens',
    'create',
    '--name',
    'tests',
    '--db',
    server.db,
    '--json',
  ]);
  return { ...server, hostUrl: hostApi.url, hostApi, token: made.token, tokenId: made.id };
}

export interface HostCall {
  readonly method?: string;
  readonly path: string;
  /** JSON body (sent as application/json), or text with its own content type in `headers`. */
  readonly json?: unknown;
  /** Bytes as they are: a Buffer for bytes that are not UTF-8. */
  readonly body?: string | Buffer;
  /** The token to send; the server's own by default; null: no Authorization header. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
}

/**
 * One call to the host API over HTTPS with the server's token (or the one given); a success that
 * breaks what its method declares fails the test (host-answers.ts).
 */
export async function hostCall(server: HostApiServer, call: HostCall): Promise<TestResponse> {
  const headers: Record<string, string> = { ...call.headers };
  let body = call.body;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers['content-type'] ??= 'application/json';
  }
  const token = call.token === undefined ? server.token : call.token;
  const method = call.method ?? 'GET';
  const answer = await request(server.hostApi, {
    method,
    path: call.path,
    headers,
    body,
    ...(token === null ? {} : { key: token }),
  });
  const problems = declaredAnswerProblems(method, call.path, answer);
  if (problems.length > 0) throw new Error(`the answer breaks its declaration: ${problems.join('; ')}`);
  return answer;
}

/** `/host/v1/users/{userId}/meals/{mealId}` with both ids percent-encoded. */
export function mealPath(userId: string, mealId: string): string {
  return `/host/v1/users/${encodeURIComponent(userId)}/meals/${encodeURIComponent(mealId)}`;
}

/** A record as PUT takes it: the Meal's fields but id and modifiedAt. */
export function hostRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Porridge',
    description: 'oats, milk',
    type: 'breakfast',
    date: '2026-11-20T07:30:00.000Z',
    caloriesTotal: 320,
    proteins_g: 12,
    fats_g: 6,
    carbs_g: 54,
    fibers_g: 7,
    sodium_mg: 80,
    iron_mg: 2.1,
    calcium_mg: 250,
    ...overrides,
  };
}
