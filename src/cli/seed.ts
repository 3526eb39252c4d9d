import { resolveDatabase } from '../config.js';
import type { MealContent } from '../domain/meal.js';
import { CliError } from '../errors.js';
import { type SeedUser, seedUsersInKeyOrder } from '../meals-io/seed-users.js';
import { withStorage } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';
import { expectPositionals, type Flags, parseCommandArgs, parseIntegerFlag, requireFlag } from './command-args.js';
import { printResult } from './output.js';
import { createStatusLine } from '../status-line.js';

const USAGE =
  'meal-export seed --users N --meals-per-user M [--heavy-users K --heavy-meals H] [--seed S] [--db PATH] [--json]';
const DEFAULT_SEED = '1';
const OPTIONS = {
  users: { type: 'string', value: 'N', required: true, help: 'users seed_1 … seed_N' },
  'meals-per-user': { type: 'string', value: 'M', required: true, help: 'meals of each user' },
  'heavy-users': { type: 'string', value: 'K', shown: '0', help: 'more users, seed_heavy_1 … seed_heavy_K' },
  'heavy-meals': { type: 'string', value: 'H', shown: 'none', help: 'meals of each heavy user, with --heavy-users' },
  seed: { type: 'string', value: 'S', shown: DEFAULT_SEED, help: 'the same seed makes the same meals' },
} as const satisfies Flags;
/**
 * Meals per write transaction: big enough that commits do not dominate, small enough that a
 * batch stays a few megabytes and other writers wait little for the lock.
 */
const BATCH_SIZE = 10_000;
const PROGRESS_EVERY_MS = 500;

/** A line of progress on stderr, only for a person watching a terminal, never in a log or pipe. */
function progressReporter(total: number) {
  const line = createStatusLine(process.stderr);
  let shownAt = 0;
  return {
    update(done: number): void {
      const now = Date.now();
      if (!line.tty || now - shownAt < PROGRESS_EVERY_MS) return;
      shownAt = now;
      line.show(`seeding: ${done} of ${total} meals`);
    },
    finish(): void {
      // The last count stays on screen, above the result.
      if (shownAt !== 0) process.stderr.write('\n');
    },
  };
}

/** Writes one user's meals in batches; the generator makes them as they are needed. */
async function seedUser(storage: Storage, user: SeedUser, written: (count: number) => void) {
  const { userId } = user;
  let batch: MealContent[] = [];
  const flush = async () => {
    const result = await storage.writes.upsertMeals(userId, batch, Date.now());
    if (!result.ok) {
      const id = batch[result.index]?.id ?? '';
      throw new CliError(`meal id ${JSON.stringify(id)} already belongs to a user other than ${userId}`);
    }
    written(batch.length);
    batch = [];
  };
  for (const meal of user.meals()) {
    batch.push(meal);
    if (batch.length === BATCH_SIZE) await flush();
  }
  if (batch.length > 0) await flush();
}

/**
 * `meal-export seed` (docs/cli.md#seed): deterministic synthetic meals for users seed_1 to
 * seed_N, and, for benchmarks, heavy users seed_heavy_1 to seed_heavy_K with long feeds. Meal
 * ids are fixed (seed_<user>_<n>, seed_heavy_<user>_<n>), so running it again updates the
 * same meals.
 */
export async function runSeed(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, USAGE);
  expectPositionals(positionals, 0, USAGE);
  const users = parseIntegerFlag(requireFlag(values.users, 'users', USAGE), 'users', 0, 1);
  const mealsPerUser = parseIntegerFlag(
    requireFlag(values['meals-per-user'], 'meals-per-user', USAGE),
    'meals-per-user',
    0,
    1,
  );
  const heavyUsers = parseIntegerFlag(values['heavy-users'], 'heavy-users', 0, 0);
  if (heavyUsers > 0) requireFlag(values['heavy-meals'], 'heavy-meals', USAGE);
  else if (values['heavy-meals'] !== undefined) {
    throw new CliError(`--heavy-meals needs --heavy-users (usage: ${USAGE})`, { usage: true });
  }
  const heavyMeals = parseIntegerFlag(values['heavy-meals'], 'heavy-meals', 0, 1);
  const seed = values.seed ?? DEFAULT_SEED;
  const total = users * mealsPerUser + heavyUsers * heavyMeals;
  const started = performance.now();
  const progress = progressReporter(total);
  let done = 0;

  // Synthetic data can be generated again: bulk loading skips the disk sync at each commit.
  await withStorage(
    resolveDatabase(values.db),
    async (storage) => {
      for (const user of seedUsersInKeyOrder(seed, users, mealsPerUser, heavyUsers, heavyMeals)) {
        await seedUser(storage, user, (count) => {
          done += count;
          progress.update(done);
        });
      }
    },
    { bulkLoad: true },
  );
  progress.finish();
  const seconds = Math.round(performance.now() - started) / 1000;
  const heavyText = heavyUsers === 0 ? '' : ` and ${heavyUsers} heavy user${heavyUsers === 1 ? '' : 's'}`;
  printResult(
    values.json,
    { users, heavyUsers, meals: total, seconds },
    `seeded ${total} meals for ${users} user${users === 1 ? '' : 's'}${heavyText} in ${seconds} s`,
  );
}
