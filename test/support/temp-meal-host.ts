import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before } from 'node:test';
import { type MealHost, MealHostError, openMealHost } from '../../src/meal-host/index.js';
import { makeTempDir } from './project.js';

/**
 * meal-export/host on a SQLite file of its own for the tests of one describe block: opened
 * before them, closed and removed after. `db` is the file, for a second handle on the store.
 */
export function useTempMealHost(label: string): { readonly host: MealHost; readonly db: string } {
  const temp = makeTempDir(label);
  const db = path.join(temp.dir, 'store.db');
  let opened: MealHost | undefined;
  before(async () => {
    opened = await openMealHost(db);
  });
  after(async () => {
    await opened?.close();
    temp.remove();
  });
  return {
    db,
    get host(): MealHost {
      if (opened === undefined) throw new Error('the host is opened before the first test of its block');
      return opened;
    },
  };
}

/** For assert.rejects: a MealHostError of `code`, its message matching `message` when one is given. */
export const hostRefusal = (code: string, message?: RegExp) => (error: unknown) => {
  assert.ok(error instanceof MealHostError, String(error));
  assert.equal(error.code, code, error.message);
  if (message !== undefined) assert.match(error.message, message);
  return true;
};
