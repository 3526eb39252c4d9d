import { resolveDatabase } from '../config.js';
import { redactApiKeys } from '../domain/api-key.js';
import { CliError } from '../errors.js';
import { issueServiceToken } from '../keys/issue-service-token.js';
import { EXISTING_STORE, withStorage } from '../storage/open-storage.js';
import { createdServiceTokenView, revokedView, serviceTokenInfo } from '../meal-host/host-records.js';
import { expectPositionals, parseCommandArgs, requireFlag } from './command-args.js';
import { runGroup } from './command-group.js';
import { printResult } from './output.js';

const USAGE = {
  create: 'meal-export service-tokens create --name NAME [--db FILE] [--json]',
  list: 'meal-export service-tokens list [--db FILE] [--json]',
  revoke: 'meal-export service-tokens revoke TOKEN_ID [--db FILE] [--json]',
};

/**
 * `service-tokens create|list|revoke` (docs/cli.md#service-tokens): the host API's credentials.
 * No command takes a token as an argument, so none is ever in argv (a process listing, a shell's
 * history); `create` writes it once, to stdout.
 */
export async function runServiceTokens(argv: string[]): Promise<void> {
  return runGroup(
    'service-tokens',
    {
      create: { usage: USAGE.create, run: createToken },
      list: { usage: USAGE.list, run: listTokens },
      revoke: { usage: USAGE.revoke, run: revokeToken },
    },
    argv,
  );
}

async function createToken(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      name: {
        type: 'string',
        value: 'NAME',
        required: true,
        help: 'who holds the token: 1 to 100 characters, shown by service-tokens list',
      },
    },
    USAGE.create,
  );
  expectPositionals(positionals, 0, USAGE.create);
  const name = requireFlag(values.name, 'name', USAGE.create);
  const issued = await withStorage(resolveDatabase(values.db), (storage) =>
    issueServiceToken(storage.serviceTokens, name, Date.now()),
  );
  if (!issued.ok) throw new CliError(issued.message, { usage: true });
  const { token, record } = issued;
  printResult(
    values.json,
    createdServiceTokenView(token, record),
    `${token}\n\nservice token ${record.id} (${record.name}) for the host API.\nThis is the only time the token is shown: store it in the back end's secret manager now.`,
  );
}

async function listTokens(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, {}, USAGE.list);
  expectPositionals(positionals, 0, USAGE.list);
  const tokens = (
    await withStorage(
      resolveDatabase(values.db),
      (storage) => storage.serviceTokens.listServiceTokens(),
      EXISTING_STORE,
    )
  ).map(serviceTokenInfo);
  const lines = tokens.map(
    (t) =>
      `${t.id}  ${t.prefix}…  ${t.revokedAt === null ? 'active ' : 'revoked'}  created ${t.createdAt}  last used ${t.lastUsedAt ?? 'never'}  ${t.name}`,
  );
  printResult(values.json, tokens, lines.length === 0 ? 'no service tokens' : lines.join('\n'));
}

async function revokeToken(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, {}, USAGE.revoke);
  const [id = ''] = expectPositionals(positionals, 1, USAGE.revoke);
  const record = await withStorage(
    resolveDatabase(values.db),
    (storage) => storage.serviceTokens.revokeServiceToken(id, Date.now()),
    EXISTING_STORE,
  );
  // A token given by mistake for its id is not echoed: stderr may end up in a log.
  if (record === undefined) throw new CliError(`no service token with id ${redactApiKeys(id)}`);
  printResult(values.json, revokedView(record.id), `revoked ${record.id}`);
}
