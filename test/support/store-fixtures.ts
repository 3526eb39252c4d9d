import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { feedStart } from '../../src/domain/feed-start.js';
import type { NewApiKey } from '../../src/domain/key-records.js';
import type { FeedPosition, MealContent } from '../../src/domain/meal.js';
import { randomId } from '../../src/domain/random-id.js';
import type {
  ClaimedWebhookEvent,
  NewWebhookEndpoint,
  WebhookAttemptRecord,
  WebhookEndpointRecord,
} from '../../src/domain/webhook-records.js';
import type { FeedWatcher } from '../../src/storage/change-signals.js';
import type { FeedPage, FeedQuery } from '../../src/storage/meal-feed.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage, StorageOptions } from '../../src/storage/storage.js';
import type { SharedSuiteOptions } from './shared-suite.js';

/** The fixtures of the shared storage suites (test/storage/*.suite.ts): one copy each. */

/** "Now" in the suites: a fixed instant, so that every modifiedAt is known in advance. */
export const T0 = Date.UTC(2025, 5, 10, 12);
export const DAY_MS = 86_400_000;
/** T0's UTC day, as the quota counts days. */
export const T0_DAY = Math.floor(T0 / DAY_MS);

/** A meal as a store takes it, with a value of every kind (text, numbers, nulls, a fraction). */
export function meal(id: string, fields: Partial<MealContent> = {}): MealContent {
  return {
    id,
    description: `about ${id}`,
    title: `meal ${id}`,
    type: 'lunch',
    date: Date.UTC(2025, 5, 1, 12),
    utcOffset: '+02:00',
    caloriesTotal: 500,
    proteins_g: 20,
    fats_g: null,
    carbs_g: 60.5,
    fibers_g: null,
    sodium_mg: 300,
    iron_mg: null,
    calcium_mg: 100,
    ...fields,
  };
}

/** A new API key of the user, created at T0, never expiring unless told. */
export function newKey(userId: string, fields: Partial<NewApiKey> = {}): NewApiKey {
  const key = generateApiKey();
  return {
    id: randomId('key_'),
    userId,
    name: `key of ${userId}`,
    prefix: displayPrefix(key),
    digest: digestApiKey(key),
    createdAt: T0,
    expiresAt: null,
    ...fields,
  };
}

/** A place for a store that nothing has opened yet: what `--db` takes, and how to remove it. */
export interface StoreLocation {
  /** A SQLite file path (the file not made yet) or a postgres:// URL (an empty schema). */
  readonly location: string;
  remove(): Promise<void>;
}

/** A fresh store under test, open. */
export interface StoreUnderTest {
  /** The open handle (a new one after `reopen`). */
  readonly storage: Storage;
  readonly location: string;
  /** Closes the handle and opens the store again: what a restart does. */
  reopen(): Promise<Storage>;
  /** Closes the store and removes it. */
  dispose(): Promise<void>;
}

/** What every shared storage suite takes. */
export interface StoreSuiteOptions extends SharedSuiteOptions {
  /** A fresh, empty store, opened: a SQLite file in a folder of its own, a PostgreSQL schema of its own. */
  open(label: string): Promise<StoreUnderTest>;
}

/** `open` for a backend that gives fresh locations: each store opened at a new one (with `storageOptions`). */
export function openerAt(
  newLocation: (label: string) => Promise<StoreLocation>,
  storageOptions: StorageOptions = {},
): StoreSuiteOptions['open'] {
  return async (label) => {
    const { location, remove } = await newLocation(label);
    let storage = await openStorage(location, storageOptions).catch(async (error: unknown) => {
      await remove();
      throw error;
    });
    return {
      get storage() {
        return storage;
      },
      location,
      async reopen() {
        await storage.close();
        storage = await openStorage(location, storageOptions);
        return storage;
      },
      async dispose() {
        await storage.close();
        await remove();
      },
    };
  };
}

/** Runs `work` with a fresh, empty store, removed after. */
export async function withStore(
  options: Pick<StoreSuiteOptions, 'open'>,
  work: (storage: Storage, location: string) => Promise<void>,
): Promise<void> {
  const store = await options.open('suite');
  try {
    await work(store.storage, store.location);
  } finally {
    await store.dispose();
  }
}

/** Runs `work` with a second handle on the store at `location` (another process, another instance). */
export async function withSecondHandle<T>(location: string, work: (second: Storage) => Promise<T>): Promise<T> {
  const second = await openStorage(location);
  try {
    return await work(second);
  } finally {
    await second.close();
  }
}

export interface FeedItem {
  readonly id: string;
  readonly modifiedAt: string;
  readonly deleted?: boolean;
  readonly [field: string]: unknown;
}

/** A feed query as the endpoint makes it: lastModifiedSince (`from`) and a cursor (`after`). */
export interface TestFeedQuery extends Partial<Omit<FeedQuery, 'start'>> {
  readonly userId: string;
  readonly from?: number;
  readonly after?: FeedPosition | undefined;
}

export async function feed(storage: Storage, query: TestFeedQuery): Promise<FeedPage> {
  const { from = 0, after, ...rest } = query;
  return storage.feed.listFeed({ includeDeleted: false, limit: 5000, ...rest, start: feedStart(from, after) });
}

/** Each item's JSON text: the page's bytes are the items joined by commas. */
export function itemTexts(page: FeedPage): string[] {
  const items = JSON.parse(`[${page.items.toString('utf8')}]`) as FeedItem[];
  assert.equal(items.length, page.count, 'count equals the number of items');
  return items.map((item) => JSON.stringify(item));
}

export async function feedItems(storage: Storage, query: TestFeedQuery): Promise<FeedItem[]> {
  return itemTexts(await feed(storage, query)).map((text) => JSON.parse(text) as FeedItem);
}

/** A modifiedAt as the feed writes it. */
export const at = (epochMs: number): string => new Date(epochMs).toISOString();

/** A user's webhook endpoints, at most (storage/webhook-store.ts). */
export const MAX_WEBHOOKS = 5;
/** How long a claim leases its events to the sender. */
export const LEASE_MS = 30_000;
export const EVENT_ID_RE = /^msg_[0-9a-f]{32}$/;

export function newEndpoint(userId: string, fields: Partial<NewWebhookEndpoint> = {}): NewWebhookEndpoint {
  return {
    id: randomId('wh_'),
    userId,
    url: `https://hooks.example.com/${userId}`,
    name: '',
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    createdAt: T0,
    ...fields,
  };
}

export function attemptOf(event: ClaimedWebhookEvent, at: number, status: number | null = 200): WebhookAttemptRecord {
  return { endpointId: event.endpointId, eventId: event.eventId, at, status, error: null, ms: 12 };
}

/** Creates an endpoint that must be accepted. */
export async function addEndpoint(
  storage: Storage,
  userId: string,
  fields: Partial<NewWebhookEndpoint> = {},
): Promise<WebhookEndpointRecord> {
  const result = await storage.webhooks.createWebhook(newEndpoint(userId, fields), MAX_WEBHOOKS);
  assert.ok(result.ok, JSON.stringify(result));
  return result.endpoint;
}

/** Claims at `now` and expects exactly one event. */
export async function claimOne(storage: Storage, now: number): Promise<ClaimedWebhookEvent> {
  const events = await storage.webhooks.claimDueWebhookEvents(now, LEASE_MS, 10);
  assert.equal(events.length, 1, JSON.stringify(events));
  return events[0] as ClaimedWebhookEvent;
}

/** Claims and delivers whatever is due at `now`: the events as they were claimed. */
export async function deliverDue(storage: Storage, now: number): Promise<ClaimedWebhookEvent[]> {
  const events = await storage.webhooks.claimDueWebhookEvents(now, LEASE_MS, 100);
  for (const event of events) {
    await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, now), { kind: 'delivered' });
  }
  return events;
}

/** The changes an event covers: its first and last modifiedAt. */
export const span = (event: ClaimedWebhookEvent): [number | null, number | null] => [event.from, event.through];

/** A held request is answered within 1 s of the commit (docs/api.md#changes-as-they-happen-wait). */
export const SIGNAL_WITHIN_MS = 1_000;
/** How long a case waits to be sure that no signal comes. */
export const QUIET_MS = 600;

/** A watcher of fixed users that records every signal, with the time it came. */
export function recordingWatcher(users: readonly string[]) {
  const interest = new Set(users);
  const signals: { readonly at: number; readonly moved: readonly string[] | 'lost' }[] = [];
  const watcher: FeedWatcher = {
    users: () => interest,
    moved: (userIds) => signals.push({ at: performance.now(), moved: [...userIds] }),
    lost: () => signals.push({ at: performance.now(), moved: 'lost' }),
  };
  const named = (userId: string, since: number) =>
    signals.find((s) => s.at >= since && s.moved !== 'lost' && s.moved.includes(userId));
  return {
    watcher,
    signals,
    /** Ms from `since` until a signal named `userId`; fails after SIGNAL_WITHIN_MS + 1 s. */
    async movedWithin(userId: string, since: number): Promise<number> {
      const deadline = since + SIGNAL_WITHIN_MS + 1_000;
      for (;;) {
        const hit = named(userId, since);
        if (hit !== undefined) return hit.at - since;
        if (performance.now() > deadline) assert.fail(`no signal for ${userId}: ${JSON.stringify(signals)}`);
        await sleep(10);
      }
    },
    namedSince(userId: string, since: number): boolean {
      return named(userId, since) !== undefined;
    },
    /** Whether a signal named `userId` within `ms` of `since`: waits that long for one, no longer. */
    async toldWithin(userId: string, since: number, ms: number): Promise<boolean> {
      for (;;) {
        const hit = named(userId, since);
        if (hit !== undefined) return hit.at - since <= ms;
        if (performance.now() > since + ms) return false;
        await sleep(10);
      }
    },
  };
}

/** A failed attempt's fate: a step of the schedule, the next try and step at `at`. */
export const retryAt = (at: number) => ({ kind: 'retry', at, stepAt: at, counted: true }) as const;

/**
 * Opens a serving store at `location` and checks what a serving process needs of it: nothing
 * said at open (its own notification came back, so it LISTENs), a meal saved and read back.
 */
export async function assertServesQuietly(location: string): Promise<void> {
  const said: string[] = [];
  const log = {
    info: (_: object, message: string) => said.push(message),
    warn: (_: object, message: string) => said.push(message),
  };
  const storage = await openStorage(location, { serving: true, log });
  try {
    assert.deepEqual(said, []);
    assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a')], T0), {
      ok: true,
      created: 1,
      updated: 0,
      unchanged: 0,
      stale: 0,
    });
    const page = await storage.feed.listFeed({
      userId: 'u1',
      start: feedStart(0, undefined),
      includeDeleted: false,
      limit: 10,
    });
    assert.equal(page.count, 1);
    assert.match(page.items.toString(), /"id":"a"/);
  } finally {
    await storage.close();
  }
}
