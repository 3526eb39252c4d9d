import type { AppStore } from './app-store.js';
import type { AuthorizationCodeStore } from './authorization-code-store.js';
import type { ChangeSignals } from './change-signals.js';
import type { KeyStore } from './key-store.js';
import type { MealFeed } from './meal-feed.js';
import type { MealWrites } from './meal-writes.js';
import type { QuotaStore } from './quota-store.js';
import type { ServiceTokenStore } from './service-token-store.js';
import type { SettingsStore } from './settings-store.js';
import type { SignInStore } from './sign-in-store.js';
import type { UserErasure } from './user-erasure.js';
import type { WebhookStore } from './webhook-store.js';

/**
 * An open store: one object per concern, each the same promise on every backend (held by the shared
 * suites of test/storage); a consumer takes only the concern it uses. With many instances on one store:
 * - **the change clock**: a user's writes are serialised, each taking max(now, last + 1 ms) in that
 *   lock (domain/change-clock.ts): modifiedAt rises in commit order, so no resuming reader skips one;
 * - **one commit step** per write (meal-writes.ts); **exact limits** (10 active keys, 5 webhooks) under
 *   concurrent creations; **migrations** at open, idempotent, safe when several processes start at once;
 * - an unreachable store is AppError('unavailable') (a 503), never a hang (storage/guarded-concerns.ts).
 */
export interface Storage {
  readonly kind: 'sqlite' | 'postgres';
  readonly feed: MealFeed;
  readonly writes: MealWrites;
  readonly keys: KeyStore;
  readonly quota: QuotaStore;
  readonly signIns: SignInStore;
  readonly webhooks: WebhookStore;
  readonly serviceTokens: ServiceTokenStore;
  readonly apps: AppStore;
  readonly codes: AuthorizationCodeStore;
  readonly erasure: UserErasure;
  readonly settings: SettingsStore;
  readonly signals: ChangeSignals;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The concerns that reach the store, by the name a Storage holds them under. */
export type StoreConcerns = Omit<Storage, 'kind' | 'signals' | 'ping' | 'close'>;

export interface StorageOptions {
  /**
   * Bulk loading (`seed`): writes are not synced to disk at commit. An OS crash may lose the
   * last batches, never corrupt the store; only for data that can be generated again.
   */
  readonly bulkLoad?: boolean;
  /**
   * The store of a serving process (`serve`, a worker, the cluster's primary): its background
   * writes, the ones that can be done later (key-use flushes, the webhook sender's
   * claims and attempts), never wait for another connection's write lock but fail at once
   * with `unavailable`, and their caller tries again at its next turn. SQLite's busy wait
   * blocks the event loop, so waiting there would hold every request behind an import.
   */
  readonly serving?: boolean;
  /**
   * A process that stays up and writes much without serving (`meal-export/host` in the app's
   * back end): on PostgreSQL it checks at open, as a serving process does, whether it speaks to
   * PostgreSQL itself, and then names its statements (planned once per connection); a short
   * command names none, which works through any pooler.
   */
  readonly longLived?: boolean;
  /**
   * What opening may create. `file` (the default): a SQLite file in a folder that exists,
   * never the folder. `never`: the store must exist already (a missing SQLite file, or a
   * PostgreSQL database without meal-export's tables, is refused with nothing created).
   */
  readonly create?: 'never' | 'file';
  /**
   * PostgreSQL itself (`--direct-db`), where the location is a transaction pooler: what a
   * pooler cannot carry, LISTEN, goes there (docs/operations.md#behind-pgbouncer). Unused on SQLite.
   */
  readonly directDatabase?: string | undefined;
  /** Where the store says, once, how its change signals travel (a serving process's log). */
  readonly log?: StoreLog | undefined;
}

/** What a store logs with: a pino logger is one. */
export interface StoreLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
