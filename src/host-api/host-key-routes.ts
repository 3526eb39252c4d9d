import type { FastifyInstance } from 'fastify';
import { parseDuration } from '../domain/duration.js';
import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import { AppError } from '../errors.js';
import { createdKeyView, keyListView, loginLinkView, revokedView } from '../host/host-records.js';
import { issueApiKey } from '../keys/issue-api-key.js';
import type { Storage } from '../storage/storage.js';
import { mintLoginLink } from '../web/login-link.js';
import { jsonObjectBody, optionalText } from './host-body.js';
import { unknownId } from './host-errors.js';
import { idOf, userIdOf } from './host-paths.js';
import { registerResource } from './host-resource.js';

export interface HostKeyRoutesDeps {
  readonly storage: Storage;
  /** `--public-url`: the origin of sign-in links; else the one the app page recorded when it started. */
  readonly publicUrl: string | undefined;
}

/** `expiresIn` as `keys create --expires-in` reads it: 90s, 30m, 12h, 30d. */
function lifetimeOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const lifetimeMs = parseDuration(text);
  if (lifetimeMs === undefined) {
    throw new AppError('invalid_record', 'expiresIn must look like 90s, 30m, 12h or 30d.', { param: 'expiresIn' });
  }
  return lifetimeMs;
}

/** A user's API keys and sign-in links (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links). */
export function registerHostKeyRoutes(app: FastifyInstance, deps: HostKeyRoutesDeps): void {
  const { storage } = deps;
  registerResource(app, '/host/v1/users/:userId/keys', {
    async POST(request) {
      const userId = userIdOf(request);
      const body = jsonObjectBody(request, ['name', 'expiresIn'], { optional: true });
      const name = optionalText(body, 'name') ?? '';
      const lifetimeMs = lifetimeOf(optionalText(body, 'expiresIn'));
      const issued = await issueApiKey(storage.keys, { userId, name, lifetimeMs }, Date.now());
      if (!issued.ok) {
        throw new AppError('too_many_keys', `The user already has ${MAX_ACTIVE_KEYS} active keys: revoke one first.`);
      }
      return { status: 201, body: createdKeyView(issued.key, issued.record) };
    },
    async GET(request) {
      const userId = userIdOf(request);
      return { status: 200, body: (await storage.keys.listApiKeys(userId)).map(keyListView) };
    },
  });

  registerResource(app, '/host/v1/keys/:keyId', {
    async DELETE(request) {
      const keyId = idOf(request, 'keyId');
      const record = await storage.keys.revokeApiKey(keyId, Date.now());
      if (record === undefined) throw unknownId('key');
      return { status: 200, body: revokedView(record.id) };
    },
  });

  registerResource(app, '/host/v1/users/:userId/login-links', {
    async POST(request) {
      const userId = userIdOf(request);
      jsonObjectBody(request, [], { optional: true });
      const origin = deps.publicUrl ?? (await storage.settings.appPageOrigin());
      if (origin === undefined) {
        throw new AppError('unavailable', 'No app page address is known: start serve with --app-port or --public-url.');
      }
      const link = await mintLoginLink(storage, userId, origin, Date.now());
      return { status: 201, body: loginLinkView(link) };
    },
  });
}
