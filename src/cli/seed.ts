import { resolveDatabase } from '../config.js';
import type { MealContent } from '../domain/meal.js';
import { CliError } from '../errors.js';
import { seedUserId, syntheticMeals } from '../meals-io/synthetic-meals.js';
import { withStorage } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';
import { expectPositionals, parseCommandArgs, parseIntegerFlag, requireFlag } from './command-args.js';
import { printResult } from './output.js';

const USAGE = 'meal-export seed --users N --meals-per-user M [--seed S] [--db PATH] [--json]';
const OPTIONS = {
  users: { type: 'string' },
  'meals-per-user': { type: 'string' },
  seed: { type: 'string' },
} as const;
const DEFAULT_SEED = '1';
/**
 * Meals per write transaction: big enough that commits do not dominate, small enough that a
 * batch stays a few megabytes and other writers wait little for the lock.
 */
const BATCH_SIZE = 10_000;
const PROGRESS_EVERY_MS = 500;

/** A line of progress on stderr, only for a person watching a terminal, never in a log or pipe. */
function progressReporter(total: number) {
  const show = process.stderr.isTTY === true;
  let shownAt = 0;
  return {
    update(done: number): void {
      const now = Date.now();
      if (!show || now - shownAt < PROGRESS_EVERY_MS) return;
      shownAt = now;
      process.stderr.write(`\rseeding: ${done} of ${total} meals`);
    },
    finish(): void {
      if (show && shownAt !== 0) process.stderr.write('\n');
    },
  };
}

/** Writes one user's meals in batches; the generator makes them as they are needed. */
async function seedUser(
  storage: Storage,
  seed: string,
  user: number,
  mealsPerUser: number,
  written: (count: number) => void,
) {
  const userId = seedUserId(user);
  let batch: MealContent[] = [];
  const flush = async () => {
    const result = await storage.upsertMeals(userId, batch, Date.now());
    if (!result.ok) {
      const id = batch[result.index]?.id ?? '';
      throw new CliError(`meal id ${JSON.stringify(id)} already belongs to a user other than ${userId}`);
    }
    written(batch.length);
    batch = [];
  };
  for (const meal of syntheticMeals(seed, user, mealsPerUser)) {
    batch.push(meal);
    if (batch.length === BATCH_SIZE) await flush();
  }
  if (batch.length > 0) await flush();
}

/**
 * `meal-export seed` (CONTRACT.md section 7): deterministic synthetic meals for users seed_1 to
 * seed_N. Meal ids are fixed (seed_<user>_<n>), so running it again updates the same meals.
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
  const seed = values.seed ?? DEFAULT_SEED;
  const total = users * mealsPerUser;
  const started = performance.now();
  const progress = progressReporter(total);
  let done = 0;

  await withStorage(resolveDatabase(values.db), async (storage) => {
    for (let user = 1; user <= users; user += 1) {
      await seedUser(storage, seed, user, mealsPerUser, (count) => {
        done += count;
        progress.update(done);
      });
    }
  });
  progress.finish();
  const seconds = Math.round(performance.now() - started) / 1000;
  printResult(
    values.json,
    { users, meals: total, seconds },
    `seeded ${total} meals for ${users} user${users === 1 ? '' : 's'} in ${seconds} s`,
  );
}
