import { DEFAULT_PUBLIC_URL, resolveDatabase, resolveSetting } from '../config.js';
import { formatInstant } from '../domain/instant.js';
import { CliError } from '../errors.js';
import { withStorage } from '../storage/open-storage.js';
import { mintLoginLink } from '../web/login-link.js';
import { expectPositionals, parseCommandArgs, parsePublicUrl, requireUserId, USER_FLAG } from './command-args.js';
import { runGroup } from './command-group.js';
import { printResult } from './output.js';

const LOGIN_LINK_USAGE = 'meal-export users login-link --user ID [--public-url URL] [--db FILE] [--json]';

/**
 * `users login-link`: a one-time link that signs the user in to the app page (issue 11). The
 * host app's back end sends the user to it; `meal-export/host` does the same from code.
 */
async function runLoginLink(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      ...USER_FLAG,
      'public-url': {
        type: 'string',
        value: 'URL',
        shown: DEFAULT_PUBLIC_URL,
        env: 'publicUrl',
        help: "the app page's origin as browsers reach it",
      },
    },
    LOGIN_LINK_USAGE,
  );
  expectPositionals(positionals, 0, LOGIN_LINK_USAGE);
  const userId = requireUserId(values.user, LOGIN_LINK_USAGE);
  const publicUrl = parsePublicUrl(resolveSetting(values['public-url'], 'publicUrl', DEFAULT_PUBLIC_URL));
  if (publicUrl === undefined) throw new CliError('no public URL');
  const link = await withStorage(resolveDatabase(values.db), (storage) =>
    mintLoginLink(storage, userId, publicUrl, Date.now()),
  );
  printResult(
    values.json,
    { url: link.url, expiresAt: formatInstant(link.expiresAt) },
    `${link.url}\n\nSigns ${userId} in to the app page once, until ${formatInstant(link.expiresAt)}.`,
  );
}

/** `meal-export users login-link ...`. */
export async function runUsers(argv: string[]): Promise<void> {
  return runGroup('users', { 'login-link': { usage: LOGIN_LINK_USAGE, run: runLoginLink } }, argv);
}
