import { BIN, runCommand } from '../bench/harness/processes.js';
import type { HostClient } from './host-client.js';

/** The users of the soak, and what each consumer of theirs holds. */
export interface SoakAccounts {
  readonly token: string;
  readonly userIds: readonly string[];
  /** One key per follower, per poller and per GET /v1/key caller. */
  readonly followers: ReadonlyArray<{ readonly userId: string; readonly key: string }>;
  readonly pollers: ReadonlyArray<{ readonly userId: string; readonly key: string }>;
  readonly keyCallers: ReadonlyArray<{ readonly userId: string; readonly key: string }>;
  readonly endpoints: ReadonlyArray<{ readonly index: number; readonly userId: string; readonly secret: string }>;
}

export const SOAK_SHAPE = { users: 5, endpointsPerUser: 2, mealsPerUser: 30, keyCallers: 2 } as const;

/**
 * A service token made by `service-tokens create` on the store (told in the environment; the
 * token comes back on stdout, never through argv), as an operator would.
 */
export async function createServiceToken(storeEnv: Readonly<Record<string, string>>): Promise<string> {
  const out = await runCommand(
    process.execPath,
    [BIN, 'service-tokens', 'create', '--name', 'soak', '--json'],
    storeEnv,
  );
  return (JSON.parse(out) as { token: string }).token;
}

async function created<T>(host: HostClient, path: string, json: unknown): Promise<T> {
  const answer = await host.send({ method: 'POST', path, json, expected: [201] });
  if (answer.kind !== 'answer' || answer.status !== 201) {
    throw new Error(`POST ${path} did not answer 201: ${JSON.stringify(answer)}`);
  }
  return answer.json as T;
}

/**
 * The users' keys and webhook endpoints, made through the host API as the app's back end would
 * (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links).
 */
export async function createAccounts(
  host: HostClient,
  token: string,
  followers: number,
  urlOf: (index: number) => string,
): Promise<SoakAccounts> {
  const userIds = Array.from({ length: SOAK_SHAPE.users }, (_, i) => `soak-u${i + 1}`);
  const key = async (userId: string, name: string) => {
    const made = await created<{ key: string }>(host, `/host/v1/users/${userId}/keys`, { name });
    return { userId, key: made.key };
  };
  const userAt = (i: number) => userIds[i % userIds.length] ?? 'soak-u1';
  const endpoints: Array<{ index: number; userId: string; secret: string }> = [];
  for (let i = 0; i < userIds.length * SOAK_SHAPE.endpointsPerUser; i += 1) {
    const userId = userAt(i);
    const made = await created<{ secret: string }>(host, `/host/v1/users/${userId}/webhooks`, {
      url: urlOf(i),
      name: `soak ${i}`,
    });
    endpoints.push({ index: i, userId, secret: made.secret });
  }
  return {
    token,
    userIds,
    followers: await Promise.all(Array.from({ length: followers }, (_, i) => key(userAt(i), `follower ${i}`))),
    pollers: await Promise.all(userIds.map((userId) => key(userId, 'poller'))),
    keyCallers: await Promise.all(
      Array.from({ length: SOAK_SHAPE.keyCallers }, (_, i) => key(userAt(i), `key caller ${i}`)),
    ),
    endpoints,
  };
}
