import { resolveDatabase } from '../config.js';
import { parseDuration } from '../domain/duration.js';
import { formatInstant } from '../domain/instant.js';
import { issueApiKey } from '../keys/issue-api-key.js';
import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import { CliError } from '../errors.js';
import { EXISTING_STORE, withStorage } from '../storage/open-storage.js';
import { createdKeyView, keyListView, revokedView } from '../meal-host/host-records.js';
import { expectPositionals, parseCommandArgs, requireUserId, USER_FLAG } from './command-args.js';
import { runGroup } from './command-group.js';
import { printResult } from './output.js';

const USAGE = {
  create: 'meal-export keys create --user ID [--name NAME] [--expires-in 90s|30m|12h|30d] [--db FILE] [--json]',
  list: 'meal-export keys list --user ID [--db FILE] [--json]',
  revoke: 'meal-export keys revoke KEY_ID [--db FILE] [--json]',
};

/** `keys create|list|revoke`. */
export async function runKeys(argv: string[]): Promise<void> {
  return runGroup(
    'keys',
    {
      create: { usage: USAGE.create, run: createKey },
      list: { usage: USAGE.list, run: listKeys },
      revoke: { usage: USAGE.revoke, run: revokeKey },
    },
    argv,
  );
}

async function createKey(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      ...USER_FLAG,
      name: { type: 'string', default: '', value: 'NAME', help: 'a label, shown by keys list' },
      'expires-in': { type: 'string', value: '90s|30m|12h|30d', shown: 'never', help: 'when the key stops working' },
    },
    USAGE.create,
  );
  expectPositionals(positionals, 0, USAGE.create);
  const userId = requireUserId(values.user, USAGE.create);
  let lifetimeMs: number | undefined;
  if (values['expires-in'] !== undefined) {
    lifetimeMs = parseDuration(values['expires-in']);
    if (lifetimeMs === undefined)
      throw new CliError('--expires-in must look like 90s, 30m, 12h or 30d', { usage: true });
  }
  const result = await withStorage(resolveDatabase(values.db), (storage) =>
    issueApiKey(storage.keys, { userId, name: values.name, lifetimeMs }, Date.now()),
  );
  if (!result.ok) {
    throw new CliError(`user ${userId} already has ${MAX_ACTIVE_KEYS} active keys: revoke one first`);
  }
  const { key, record } = result;
  printResult(
    values.json,
    createdKeyView(key, record),
    `${key}\n\nkey id ${record.id} for user ${userId}${record.expiresAt === null ? '' : `, expires ${formatInstant(record.expiresAt)}`}.\nThis is the only time the key is shown: store it in a secret manager now.`,
  );
}

async function listKeys(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USER_FLAG, USAGE.list);
  expectPositionals(positionals, 0, USAGE.list);
  const userId = requireUserId(values.user, USAGE.list);
  const keys = (
    await withStorage(resolveDatabase(values.db), (storage) => storage.keys.listApiKeys(userId), EXISTING_STORE)
  ).map(keyListView);
  const lines = keys.map(
    (k) =>
      `${k.id}  ${k.prefix}…  ${k.revokedAt === null ? 'active ' : 'revoked'}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}${k.appId === null ? '' : `  app ${k.appId}`}${k.name === '' ? '' : `  ${k.name}`}`,
  );
  printResult(values.json, keys, lines.length === 0 ? `no keys for user ${userId}` : lines.join('\n'));
}

async function revokeKey(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, {}, USAGE.revoke);
  const [keyId = ''] = expectPositionals(positionals, 1, USAGE.revoke);
  const record = await withStorage(
    resolveDatabase(values.db),
    (storage) => storage.keys.revokeApiKey(keyId, Date.now()),
    EXISTING_STORE,
  );
  if (record === undefined) throw new CliError(`no key with id ${keyId}`);
  printResult(values.json, revokedView(record.id), `revoked ${record.id}`);
}
