import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { feedStart } from '../../src/domain/feed-start.js';
import type { MealSave } from '../../src/domain/meal.js';
import { mealDigestTerm } from '../../src/domain/meals-digest.js';
import type { SaveResult, UpsertResult } from '../../src/storage/meal-writes.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { newPostgresSchema, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';
import { meal, T0 } from '../support/store-fixtures.js';

// Every write path of both backends against one another, on generated histories: SQLite
// decides in TypeScript (storage/save-step.ts), PostgreSQL in SQL (a single save or delete in
// its function, a batch in the batch statement), and all of them must give the same outcomes,
// the same stored meals, versions, clocks and digests. A history's saves of one meal go to
// saveMeal on one path, to a batch of one on another and to an import on the third; its saves
// of several meals to one batch, or to an import cut into batches. Two users share a few ids
// (foreign ids); a few contents per id (equal records, changes of the offset alone, a control
// character, which the batch statement's contents are joined by); versions
// absent, equal, lower and higher, at 0 and at 2^53 - 1; the clock sometimes ahead of now.
const skip = await postgresSkipReason();

const VERSIONS = [0, 1, 2, 3, Number.MAX_SAFE_INTEGER] as const;
const IDS = 3;
const USERS = 2;

interface SaveCall {
  readonly kind: 'save';
  readonly user: number;
  readonly meals: readonly { readonly id: number; readonly variant: number; readonly version?: number | undefined }[];
  /** An import's batch size, on the import path. */
  readonly batch: number;
  readonly step: number;
}
interface DeleteCall {
  readonly kind: 'delete';
  readonly user: number;
  readonly id: number;
  readonly version?: number | undefined;
  readonly step: number;
}
type Call = SaveCall | DeleteCall;

const version = fc.option(fc.constantFrom(...VERSIONS), { nil: undefined });
// A step of now: the same instant (the clock's next value is clock + 1), later, or earlier (the clock ahead).
const step = fc.constantFrom(0, 1, 2, 1000, -5);
const saveCall: fc.Arbitrary<Call> = fc.record({
  kind: fc.constant('save' as const),
  user: fc.nat(USERS - 1),
  meals: fc.array(
    fc.record({ id: fc.nat(IDS - 1), variant: fc.nat(2), version }, { requiredKeys: ['id', 'variant'] }),
    { minLength: 1, maxLength: 4 },
  ),
  batch: fc.integer({ min: 1, max: 3 }),
  step,
});
const deleteCall: fc.Arbitrary<Call> = fc.record(
  { kind: fc.constant('delete' as const), user: fc.nat(USERS - 1), id: fc.nat(IDS - 1), version, step },
  { requiredKeys: ['kind', 'user', 'id', 'step'] },
);
const history = fc.array(fc.oneof({ arbitrary: saveCall, weight: 3 }, { arbitrary: deleteCall, weight: 1 }), {
  minLength: 1,
  maxLength: 10,
});

type Path = 'single' | 'batch' | 'import';
const PATHS: readonly Path[] = ['single', 'batch', 'import'];

/** A call's answer, the same shape whichever method took it. */
type Answer = UpsertResult | string;

const counted = (result: SaveResult): UpsertResult => {
  if (!result.ok) return result;
  const counts = { created: 0, updated: 0, unchanged: 0, stale: 0 };
  counts[result.outcome] = 1;
  return { ok: true, ...counts };
};

async function* batchesOf(meals: readonly MealSave[], size: number): AsyncGenerator<readonly MealSave[]> {
  for (let i = 0; i < meals.length; i += size) yield meals.slice(i, i + size);
}

describe('every write path on both backends decides as one', { skip: skip ?? false }, () => {
  const temp = makeTempDir('write-paths');
  const schemas: TestPostgresStore[] = [];
  /** Each backend and path its own store, so that the same ids give the same bytes everywhere. */
  const stores: { name: string; path: Path; storage: Storage }[] = [];
  let runs = 0;

  before(async () => {
    for (const pathName of PATHS) {
      const schema = await newPostgresSchema(`paths_${pathName}`);
      schemas.push(schema);
      stores.push({
        name: `sqlite ${pathName}`,
        path: pathName,
        storage: await openStorage(path.join(temp.dir, `${pathName}.db`)),
      });
      stores.push({ name: `postgres ${pathName}`, path: pathName, storage: await openStorage(schema.url) });
    }
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.storage.close()));
    await Promise.all(schemas.map((schema) => schema.remove()));
    temp.remove();
  });

  /** One call on one store, and, for saveMeal, its modifiedAt against the stored one. */
  async function apply(
    store: (typeof stores)[number],
    call: Call,
    users: string[],
    ids: string[],
    now: number,
  ): Promise<Answer> {
    const userId = users[call.user] ?? '';
    const { writes, feed } = store.storage;
    if (call.kind === 'delete') return writes.deleteMeal(userId, ids[call.id] ?? '', now, call.version);
    const meals: MealSave[] = call.meals.map(({ id, variant, version: sourceVersion }) => ({
      ...meal(
        ids[id] ?? '',
        variant === 1 ? { title: 'changed \u001e, a control character' } : variant === 2 ? { utcOffset: '-03:30' } : {},
      ),
      ...(sourceVersion === undefined ? {} : { sourceVersion }),
    }));
    const [only] = meals;
    if (store.path === 'single' && only !== undefined && meals.length === 1) {
      const result = await writes.saveMeal(userId, only, now);
      if (result.ok) assert.equal(result.modifiedAt, (await feed.getMeal(userId, only.id))?.modifiedAt, store.name);
      return counted(result);
    }
    if (store.path === 'import') return writes.importMeals(userId, batchesOf(meals, call.batch), now);
    return writes.upsertMeals(userId, meals, now);
  }

  /** What a user's store holds: every item with tombstones, the clock, the digest, each id's version. */
  async function stateOf(storage: Storage, userId: string, ids: string[]) {
    const page = await storage.feed.listFeed({
      userId,
      start: feedStart(0, undefined),
      includeDeleted: true,
      limit: 100,
    });
    const versions = await Promise.all(ids.map(async (id) => (await storage.feed.getMeal(userId, id))?.sourceVersion));
    const items = page.items.toString();
    const live = (JSON.parse(`[${items}]`) as { id: string; modifiedAt: string; deleted?: boolean }[]).filter(
      (item) => item.deleted !== true,
    );
    // The digest kept by the writes is the one computed from the live meals.
    const sum = live.reduce((total, item) => total + mealDigestTerm(item.id, item.modifiedAt), 0n) % (1n << 128n);
    if (page.liveDigest !== undefined) assert.deepEqual(page.liveDigest, { count: live.length, sum });
    return { items, clock: page.newestChangeAt, digest: page.liveDigest, versions };
  }

  test('the same outcomes, meals, versions, clocks and digests; a call that changes nothing moves no clock', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (calls) => {
        runs += 1;
        const users = Array.from({ length: USERS }, (_, n) => `r${runs}-u${n}`);
        const ids = Array.from({ length: IDS }, (_, n) => `r${runs}-m${n}`);
        let now = T0;
        for (const [index, call] of calls.entries()) {
          now += call.step;
          const before = await Promise.all(users.map((userId) => stateOf(stores[0]?.storage as Storage, userId, ids)));
          const answers: Answer[] = [];
          for (const store of stores) answers.push(await apply(store, call, users, ids, now));
          const states = await Promise.all(
            stores.map((store) => Promise.all(users.map((userId) => stateOf(store.storage, userId, ids)))),
          );
          stores.forEach((store, n) => {
            const where = `call ${index} on ${store.name}`;
            assert.deepEqual(answers[n], answers[0], where);
            assert.deepEqual(states[n], states[0], where);
          });
          const answer = answers[0];
          const changed =
            answer === 'deleted' || (typeof answer === 'object' && answer.ok && answer.created + answer.updated > 0);
          if (!changed) {
            users.forEach((_, u) => {
              assert.equal(states[0]?.[u]?.clock, before[u]?.clock, `call ${index}: no change, no clock step`);
              assert.equal(states[0]?.[u]?.items, before[u]?.items, `call ${index}: no change, no meal written`);
            });
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
