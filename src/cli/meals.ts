import { resolveDatabase } from '../config.js';
import { parseInstant } from '../domain/instant.js';
import { CliError } from '../errors.js';
import { writeFileAtomically } from '../meals-io/atomic-file.js';
import { formatFromExtension } from '../meals-io/file-format.js';
import { writeMealExport } from '../meals-io/meal-export.js';
import { createStdoutSink } from '../meals-io/stdout-sink.js';
import { EXISTING_STORE, withStorage } from '../storage/open-storage.js';
import { deletedView } from '../meal-host/host-records.js';
import { tombstonePruneCutoff } from '../domain/tombstone-retention.js';
import {
  expectPositionals,
  type Flags,
  parseCommandArgs,
  parseTombstoneDaysFlag,
  requireUserId,
  USER_FLAG,
} from './command-args.js';
import { runGroup } from './command-group.js';
import { DEFAULT_TOMBSTONE_DAYS, MAX_TOMBSTONE_DAYS } from '../domain/tombstone-retention.js';
import { formatFlag, IMPORT_USAGE, runImport } from './meals-import.js';
import { printResult } from './output.js';
import { pruneInPieces } from '../storage/tombstone-pieces.js';

const DELETE_USAGE = 'meal-export meals delete --user ID MEAL_ID [--db PATH] [--json]';
const PRUNE_USAGE = 'meal-export meals prune [--tombstone-days 30] [--db PATH] [--json]';
const EXPORT_USAGE =
  'meal-export meals export --user ID [--since ISO] [--format csv|jsonl] [--out FILE] [--for-spreadsheet] [--db PATH] [--json]';

const USER = USER_FLAG;
const PRUNE_FLAGS = {
  'tombstone-days': {
    type: 'string',
    value: 'N',
    shown: String(DEFAULT_TOMBSTONE_DAYS),
    help: `prune tombstones older than N days, 0 to ${MAX_TOMBSTONE_DAYS}`,
  },
} as const satisfies Flags;
const EXPORT_FLAGS = {
  ...USER,
  format: { type: 'string', value: 'csv|jsonl', shown: "from --out's extension, else csv", help: 'the file layout' },
  since: {
    type: 'string',
    value: 'ISO',
    shown: 'every live meal',
    help: 'only meals modified at or after this instant',
  },
  out: { type: 'string', value: 'FILE', shown: 'stdout', help: 'the file to write, replaced atomically' },
  'for-spreadsheet': {
    type: 'boolean',
    default: false,
    help: "CSV for a person's spreadsheet: a UTF-8 byte order mark, and ' before a text cell that would run as a formula",
  },
} as const satisfies Flags;

/** Deleting twice is not an error: the meal is gone either way (docs/cli.md#meals). */
async function runDelete(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USER, DELETE_USAGE);
  const userId = requireUserId(values.user, DELETE_USAGE);
  const [mealId = ''] = expectPositionals(positionals, 1, DELETE_USAGE);
  const outcome = await withStorage(
    resolveDatabase(values.db),
    (storage) => storage.writes.deleteMeal(userId, mealId, Date.now()),
    EXISTING_STORE,
  );
  if (outcome === 'not_found') {
    throw new CliError(`no meal ${JSON.stringify(mealId)} for user ${JSON.stringify(userId)}`);
  }
  const text = outcome === 'deleted' ? `deleted meal ${mealId}` : `meal ${mealId} was already deleted`;
  printResult(values.json, deletedView(mealId), text);
}

/**
 * Prunes tombstones past the retention now, by the rule `serve` runs at start and hourly; the
 * store remembers each user's newest pruned position (docs/api.md#staying-in-sync).
 */
async function runPrune(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, PRUNE_FLAGS, PRUNE_USAGE);
  expectPositionals(positionals, 0, PRUNE_USAGE);
  const tombstoneDays = parseTombstoneDaysFlag(values['tombstone-days']);
  const pruned = await withStorage(
    resolveDatabase(values.db),
    (storage) => pruneInPieces(storage.writes, tombstonePruneCutoff(Date.now(), tombstoneDays)),
    EXISTING_STORE,
  );
  printResult(values.json, { pruned }, `pruned ${pruned} tombstone${pruned === 1 ? '' : 's'}`);
}

/**
 * The app's "Export (API, CSV)": live meals in feed order, streamed. With --out the file is
 * replaced atomically; without it the data is the whole of stdout, so nothing else is printed.
 */
async function runExport(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, EXPORT_FLAGS, EXPORT_USAGE);
  const userId = requireUserId(values.user, EXPORT_USAGE);
  expectPositionals(positionals, 0, EXPORT_USAGE);
  // No --since: every live meal. modifiedAt is a write time, never before 1970.
  const since = values.since === undefined ? 0 : parseInstant(values.since);
  if (since === undefined) {
    const example = 'such as 2025-01-01 or 2025-01-01T00:00:00Z';
    throw new CliError(`--since must be an ISO 8601 date-time ${example}, got ${JSON.stringify(values.since)}`, {
      usage: true,
    });
  }
  const out = values.out;
  if (out === '') throw new CliError(`--out needs a file name (usage: ${EXPORT_USAGE})`, { usage: true });
  const format =
    formatFlag(values.format, EXPORT_USAGE) ?? (out === undefined ? undefined : formatFromExtension(out)) ?? 'csv';
  // The spreadsheet form changes what a program would read back, so it is asked for, and only of CSV.
  const forSpreadsheet = values['for-spreadsheet'];
  if (forSpreadsheet && format !== 'csv') {
    throw new CliError(`--for-spreadsheet writes CSV, not ${format} (usage: ${EXPORT_USAGE})`, { usage: true });
  }

  await withStorage(
    resolveDatabase(values.db),
    async (storage) => {
      const meals = storage.feed.exportMeals(userId, since);
      if (out === undefined) {
        await writeMealExport(meals, format, createStdoutSink(), { forSpreadsheet });
        return;
      }
      const count = await writeFileAtomically(out, (sink) =>
        writeMealExport(meals, format, sink, { forSpreadsheet }),
      ).catch((error: unknown) => {
        // File-system failures (a missing folder, no permission, a full disk) are the user's to fix.
        const { code, syscall } = error as NodeJS.ErrnoException;
        if (syscall === undefined) throw error;
        throw new CliError(`cannot write ${out}: ${code ?? syscall}`, { cause: error });
      });
      printResult(values.json, { exported: count, out }, `exported ${count} meal${count === 1 ? '' : 's'} to ${out}`);
    },
    EXISTING_STORE,
  );
}

/** `meal-export meals import|delete|prune|export ...` (docs/cli.md#meals). */
export async function runMeals(argv: string[]): Promise<void> {
  return runGroup(
    'meals',
    {
      import: { usage: IMPORT_USAGE, run: runImport },
      delete: { usage: DELETE_USAGE, run: runDelete },
      prune: { usage: PRUNE_USAGE, run: runPrune },
      export: { usage: EXPORT_USAGE, run: runExport },
    },
    argv,
  );
}
