import { resolveDatabase } from '../config.js';
import { redactApiKeys } from '../domain/api-key.js';
import type { AppFault } from '../domain/app-registration.js';
import { CliError } from '../errors.js';
import { appView, createdAppView, rotatedAppSecretView } from '../meal-host/host-app-records.js';
import { deletedView } from '../meal-host/host-records.js';
import { registerApp, rotateAppSecret } from '../keys/register-app.js';
import { EXISTING_STORE, withStorage } from '../storage/open-storage.js';
import { expectPositionals, parseCommandArgs, requireFlag } from './command-args.js';
import { runGroup } from './command-group.js';
import { printResult } from './output.js';

const USAGE = {
  create:
    'meal-export apps create --name NAME --redirect-uri URL [--redirect-uri URL …] [--homepage URL] [--db FILE] [--json]',
  list: 'meal-export apps list [--db FILE] [--json]',
  delete: 'meal-export apps delete APP_ID [--db FILE] [--json]',
  rotateSecret: 'meal-export apps rotate-secret APP_ID [--db FILE] [--json]',
};

/** The flag that carries each registration field, for a refusal's words. */
const FLAG_OF: Readonly<Record<AppFault['param'], string>> = {
  name: '--name',
  redirectUris: '--redirect-uri',
  homepageUrl: '--homepage',
};

const SHOWN_ONCE = "This is the only time the client secret is shown: hand it to the app's developer now.";

/**
 * `apps create|list|delete|rotate-secret` (docs/cli.md#apps): third-party apps registered by the
 * operator for Connect (docs/host-api.md#apps-connect). No command takes a client secret as an
 * argument; `create` and `rotate-secret` write one once, to stdout.
 */
export async function runApps(argv: string[]): Promise<void> {
  return runGroup(
    'apps',
    {
      create: { usage: USAGE.create, run: createApp },
      list: { usage: USAGE.list, run: listApps },
      delete: { usage: USAGE.delete, run: deleteApp },
      'rotate-secret': { usage: USAGE.rotateSecret, run: rotateSecret },
    },
    argv,
  );
}

async function createApp(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      name: {
        type: 'string',
        value: 'NAME',
        required: true,
        help: 'shown to people on the consent page: 1 to 100 characters',
      },
      'redirect-uri': {
        type: 'string',
        multiple: true,
        value: 'URL',
        required: true,
        help: 'where people are sent back: https://, or http:// to 127.0.0.1, [::1] or localhost; 1 to 10, repeat the flag',
      },
      homepage: { type: 'string', value: 'URL', shown: 'none', help: "the app's https:// homepage" },
    },
    USAGE.create,
  );
  expectPositionals(positionals, 0, USAGE.create);
  const name = requireFlag(values.name, 'name', USAGE.create);
  const redirectUris = values['redirect-uri'] ?? [];
  if (redirectUris.length === 0) throw new CliError(`missing --redirect-uri (usage: ${USAGE.create})`, { usage: true });
  const input = { name, redirectUris, homepageUrl: values.homepage };
  const registered = await withStorage(resolveDatabase(values.db), (storage) =>
    registerApp(storage.apps, input, Date.now()),
  );
  if (!registered.ok) {
    const { param, message } = registered.fault;
    throw new CliError(`${FLAG_OF[param]}: ${message}`, { usage: true });
  }
  const { record, secret } = registered;
  printResult(
    values.json,
    createdAppView(record, secret),
    `${secret}\n\napp ${record.id} (${record.name}): its client_id is ${record.id}, the line above its client secret.\n${SHOWN_ONCE}`,
  );
}

async function listApps(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, {}, USAGE.list);
  expectPositionals(positionals, 0, USAGE.list);
  const apps = (
    await withStorage(resolveDatabase(values.db), (storage) => storage.apps.listApps(), EXISTING_STORE)
  ).map(appView);
  const lines = apps.map((app) => `${app.id}  created ${app.createdAt}  ${app.name}  ${app.redirectUris.join(' ')}`);
  printResult(values.json, apps, lines.length === 0 ? 'no apps' : lines.join('\n'));
}

async function deleteApp(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, {}, USAGE.delete);
  const [id = ''] = expectPositionals(positionals, 1, USAGE.delete);
  const deleted = await withStorage(
    resolveDatabase(values.db),
    (storage) => storage.apps.deleteApp(id, Date.now()),
    EXISTING_STORE,
  );
  // A secret given by mistake for an id is not echoed: stderr may end up in a log.
  if (deleted === undefined) throw new CliError(`no app with id ${redactApiKeys(id)}`);
  printResult(
    values.json,
    deletedView(id),
    `deleted ${id}; ${deleted.revokedKeys} key${deleted.revokedKeys === 1 ? '' : 's'} people granted it revoked`,
  );
}

async function rotateSecret(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, {}, USAGE.rotateSecret);
  const [id = ''] = expectPositionals(positionals, 1, USAGE.rotateSecret);
  const rotated = await withStorage(
    resolveDatabase(values.db),
    (storage) => rotateAppSecret(storage.apps, id, Date.now()),
    EXISTING_STORE,
  );
  if (rotated === undefined) throw new CliError(`no app with id ${redactApiKeys(id)}`);
  printResult(
    values.json,
    rotatedAppSecretView(rotated.record.id, rotated.secret),
    `${rotated.secret}\n\nthe new client secret of app ${rotated.record.id}; the previous one is refused from now on.\n${SHOWN_ONCE}`,
  );
}
