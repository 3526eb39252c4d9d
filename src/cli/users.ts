import { resolveDatabase, resolveSetting } from '../config.js';
import { formatInstant } from '../domain/instant.js';
import { pagePathFault } from '../domain/page-path.js';
import { CliError } from '../errors.js';
import { EXISTING_STORE, withStorage } from '../storage/open-storage.js';
import { erasedUserView, loginLinkView } from '../meal-host/host-records.js';
import { mintLoginLink } from '../web/login-link.js';
import { expectPositionals, parseCommandArgs, parsePublicUrl, requireUserId, USER_FLAG } from './command-args.js';
import { runGroup } from './command-group.js';
import { printNotice, printResult } from './output.js';
import { nothingListensAt } from './page-probe.js';

const LOGIN_LINK_USAGE = 'meal-export users login-link --user ID [--next PATH] [--public-url URL] [--db FILE] [--json]';

/**
 * `users login-link`: a one-time link that signs the user in to the app page
 * (docs/app.md#the-page-resources--export-api-csv). The host app's back end sends the user to it;
 * `meal-export/host` does the same from code. The link's origin: `--public-url` (or
 * MEAL_EXPORT_PUBLIC_URL), else the one `serve --app-port` recorded in the store when its page
 * started; it warns when nothing listens there any more.
 */
async function runLoginLink(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      ...USER_FLAG,
      'public-url': {
        type: 'string',
        value: 'URL',
        shown: 'the origin serve --app-port recorded in the store',
        env: 'publicUrl',
        help: "the app page's origin as browsers reach it",
      },
      next: {
        type: 'string',
        value: 'PATH',
        shown: 'the page itself',
        help: 'a path of the page the link lands on once signed in (a Connect request)',
      },
    },
    LOGIN_LINK_USAGE,
  );
  expectPositionals(positionals, 0, LOGIN_LINK_USAGE);
  const userId = requireUserId(values.user, LOGIN_LINK_USAGE);
  const publicUrl = parsePublicUrl(resolveSetting(values['public-url'], 'publicUrl'));
  const next = values.next;
  const fault = next === undefined ? undefined : pagePathFault(next);
  if (fault !== undefined) throw new CliError(`--${fault}`, { usage: true });
  const link = await withStorage(
    resolveDatabase(values.db),
    async (storage) => {
      const origin = publicUrl ?? (await storage.settings.appPageOrigin());
      if (origin === undefined) {
        throw new CliError('no app page has started on this store: run serve --app-port N, or pass --public-url');
      }
      return mintLoginLink(storage, userId, origin, Date.now(), next);
    },
    EXISTING_STORE,
  );
  // The recorded address is that of the last page to start: it may have stopped since.
  const origin = new URL(link.url).origin;
  if (publicUrl === undefined && (await nothingListensAt(origin))) {
    printNotice(`meal-export: nothing listens at ${origin} now: the link opens once serve --app-port runs there again`);
  }
  printResult(
    values.json,
    loginLinkView(link),
    `${link.url}\n\nSigns ${userId} in to the app page once, until ${formatInstant(link.expiresAt)}.`,
  );
}

const ERASE_USAGE = 'meal-export users erase --user ID [--db FILE] [--json]';

/**
 * `users erase`: everything of the user, as the host API's DELETE /host/v1/users/{userId}
 * (docs/host-api.md#erasing-a-user): for a person who deleted their account in the diet app.
 */
async function runErase(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { ...USER_FLAG }, ERASE_USAGE);
  expectPositionals(positionals, 0, ERASE_USAGE);
  const userId = requireUserId(values.user, ERASE_USAGE);
  const erased = await withStorage(
    resolveDatabase(values.db),
    (storage) => storage.erasure.eraseUser(userId, Date.now()),
    EXISTING_STORE,
  );
  const { meals, keys, webhooks } = erased;
  const calls = webhooks === 0 ? '' : ' Each enabled endpoint gets one last user.erased call, then goes.';
  printResult(
    values.json,
    erasedUserView(userId, erased),
    `Erased ${userId}: ${meals} meals (tombstones included), ${keys} keys, ${webhooks} webhook endpoints.${calls}`,
  );
}

/** `meal-export users login-link|erase ...`. */
export async function runUsers(argv: string[]): Promise<void> {
  return runGroup(
    'users',
    {
      'login-link': { usage: LOGIN_LINK_USAGE, run: runLoginLink },
      erase: { usage: ERASE_USAGE, run: runErase },
    },
    argv,
  );
}
