import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { seedUsersInKeyOrder } from '../../src/meals-io/seed-users.js';
import { DATA_DIR } from './datasets.js';
import type { DatasetShape } from './options.js';

const FILES_DIR = path.join(DATA_DIR, 'history-files');

/**
 * The app's whole history for `meals import --all-users` (docs/cli.md#importing-every-users-history):
 * JSON Lines of `seed`'s synthetic meals, each with its `userId`, the users one after the other
 * in the order `seed` writes them, so that an imported store holds what a seeded one does (the
 * same users, ids and meals; the request scenarios' users and heavy users). About 290 bytes a
 * line; made once per shape and kept under bench/.data (a 10 M-meal history is about 3 GB).
 */
export async function historyFile(shape: DatasetShape): Promise<string> {
  mkdirSync(FILES_DIR, { recursive: true });
  const { users, mealsPerUser, heavyUsers, heavyMeals, seed } = shape;
  const file = path.join(FILES_DIR, `u${users}x${mealsPerUser}-h${heavyUsers}x${heavyMeals}-s${seed}.jsonl`);
  if (existsSync(file)) return file;
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  for (const user of seedUsersInKeyOrder(seed, users, mealsPerUser, heavyUsers, heavyMeals)) {
    let chunk = '';
    for (const meal of user.meals()) {
      chunk += `${JSON.stringify({ userId: user.userId, ...meal, date: new Date(meal.date).toISOString() })}\n`;
    }
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, file);
  return file;
}
