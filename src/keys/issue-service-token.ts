import type { ServiceTokenRecord } from '../domain/service-token-records.js';
import {
  digestServiceToken,
  generateServiceToken,
  newServiceTokenId,
  serviceTokenDisplayPrefix,
  serviceTokenNameProblem,
} from '../domain/service-token.js';
import type { ServiceTokenStore } from '../storage/service-token-store.js';

export type IssuedServiceToken =
  | { readonly ok: true; readonly token: string; readonly record: ServiceTokenRecord }
  | { readonly ok: false; readonly reason: 'invalid_name'; readonly message: string };

/**
 * Makes a service token and stores its digest (docs/host-api.md#service-tokens): the one
 * place tokens are made, for `service-tokens create` and the host module alike. The name is
 * trimmed, as the app page trims a key's name, then must be 1 to 100 characters of text. The
 * plain token is in the answer and nowhere else: the caller shows it once.
 */
export async function issueServiceToken(
  store: Pick<ServiceTokenStore, 'createServiceToken'>,
  name: string,
  now: number,
): Promise<IssuedServiceToken> {
  const trimmed = name.trim();
  const problem = serviceTokenNameProblem(trimmed);
  if (problem !== undefined) return { ok: false, reason: 'invalid_name', message: problem };
  const token = generateServiceToken();
  const record = await store.createServiceToken({
    id: newServiceTokenId(),
    name: trimmed,
    prefix: serviceTokenDisplayPrefix(token),
    digest: digestServiceToken(token),
    createdAt: now,
  });
  return { ok: true, token, record };
}
