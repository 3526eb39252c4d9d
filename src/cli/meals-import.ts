import { resolveDatabase } from '../config.js';
import { CliError } from '../errors.js';
import { describeUsersImportStop, importUsersStream, type UsersImportOutcome } from '../meals-io/all-users-import.js';
import { formatFromExtension, isMealFileFormat, type MealFileFormat } from '../meals-io/file-format.js';
import { importMealStream } from '../meals-io/meal-import.js';
import { readMealFile } from '../meals-io/meal-file.js';
import { openInputPieces } from '../meals-io/read-input.js';
import { readUsersMealFile } from '../meals-io/users-meal-file.js';
import type { Storage } from '../storage/storage.js';
import { withStorage } from '../storage/open-storage.js';
import { expectPositionals, type Flags, parseCommandArgs, requireUserId } from './command-args.js';
import { createImportProgress } from './import-progress.js';
import { printResult } from './output.js';

export const IMPORT_USAGE =
  'meal-export meals import --user ID|--all-users FILE|- [--format jsonl|csv] [--db PATH] [--json]';

const IMPORT_FLAGS = {
  user: {
    type: 'string',
    value: 'ID',
    shown: 'none: one of --user and --all-users is needed',
    help: 'the user the file is for, 1 to 200 printable characters',
  },
  'all-users': {
    type: 'boolean',
    default: false,
    help: "the app's whole history: every record names its user (userId), committed in batches of whole users",
  },
  format: { type: 'string', value: 'jsonl|csv', shown: "from the file name's extension", help: 'the file layout' },
} as const satisfies Flags;

/** `--format`, when given, must name one of the two layouts. */
export function formatFlag(value: string | boolean | undefined, usage: string): MealFileFormat | undefined {
  if (value === undefined) return undefined;
  if (!isMealFileFormat(value)) {
    throw new CliError(`--format must be jsonl or csv, got ${JSON.stringify(value)} (usage: ${usage})`, {
      usage: true,
    });
  }
  return value;
}

/**
 * One all-or-nothing write, with the records streamed from the file into it
 * (docs/cli.md#memory-and-locking): memory holds a batch, not the file, and a bad record anywhere
 * rolls the write back (meals-io/meal-import.ts).
 */
async function importOneUser(storage: Storage, userId: string, pieces: AsyncIterable<string>, format: MealFileFormat) {
  const now = Date.now();
  const progress = createImportProgress(process.stderr);
  try {
    const result = await importMealStream(
      readMealFile(pieces, format),
      (batches) => storage.writes.importMeals(userId, batches, now),
      progress.read,
    );
    if (result.ok) progress.finished();
    else progress.failed();
    if (!result.ok) throw new CliError(result.message);
    return result;
  } catch (error) {
    progress.failed();
    throw error;
  }
}

/**
 * Every user's history, committed in batches of whole users as it is read
 * (docs/cli.md#importing-every-users-history): a fault stops the run, the batches before it stay.
 */
async function importAllUsers(
  storage: Storage,
  pieces: AsyncIterable<string>,
  format: MealFileFormat,
): Promise<Extract<UsersImportOutcome, { ok: true }>> {
  const progress = createImportProgress(process.stderr);
  try {
    const result = await importUsersStream(
      readUsersMealFile(pieces, format),
      (records) => storage.writes.importUsersBatch(records, Date.now()),
      { onProgress: ({ committed, committedLine }) => progress.read(committed, committedLine) },
    );
    if (result.ok) progress.finished();
    else progress.failed();
    if (!result.ok) throw new CliError(describeUsersImportStop(result));
    return result;
  } catch (error) {
    progress.failed();
    throw error;
  }
}

/** `meals import` (docs/cli.md#importing-meals): one user's file, or every user's history. */
export async function runImport(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, IMPORT_FLAGS, IMPORT_USAGE);
  const allUsers = values['all-users'];
  if (allUsers && values.user !== undefined) {
    throw new CliError(`--user and --all-users cannot go together (usage: ${IMPORT_USAGE})`, { usage: true });
  }
  const userId = allUsers ? undefined : requireUserId(values.user, IMPORT_USAGE);
  const [input = '-'] = expectPositionals(positionals, 1, IMPORT_USAGE);
  const format = formatFlag(values.format, IMPORT_USAGE) ?? (input === '-' ? undefined : formatFromExtension(input));
  if (format === undefined) {
    const why = input === '-' ? 'stdin has no file name' : `cannot tell the format of ${input} from its extension`;
    throw new CliError(`${why}: pass --format jsonl or --format csv (usage: ${IMPORT_USAGE})`, { usage: true });
  }

  const pieces = await openInputPieces(input);
  const outcome = await withStorage(resolveDatabase(values.db), (storage) =>
    userId === undefined ? importAllUsers(storage, pieces, format) : importOneUser(storage, userId, pieces, format),
  );
  // A record equal to the live meal of its id is counted as unchanged: nothing was written for
  // it. Stale records (docs/host-api.md#ordering-saves-sourceversion) are named only when there
  // are any, so the summary of a file without versions stays as it always was.
  const { imported, created, updated, unchanged, stale } = outcome;
  const staleWords = stale > 0 ? `, ${stale} stale` : '';
  const batches = 'batches' in outcome ? { batches: outcome.batches } : {};
  printResult(
    values.json,
    { imported, created, updated, unchanged, ...(stale > 0 ? { stale } : {}), ...batches },
    `imported ${imported} meal${imported === 1 ? '' : 's'} (${created} created, ${updated} updated, ${unchanged} unchanged${staleWords})`,
  );
}
