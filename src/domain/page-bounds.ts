/** How many meals a page holds, and how long a long poll may wait (docs/api.md#the-call). */

export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 5000;
/** The longest long poll, in seconds (docs/api.md#changes-as-they-happen-wait). */
export const MAX_WAIT_SECONDS = 120;
/**
 * What the last read of a held page may take once its wait is over: the store's call deadline
 * (SQLite's busy timeout, PostgreSQL's per-call deadline), after which it answers 503.
 */
export const FINAL_READ_SECONDS = 5;
/**
 * The idle time a proxy in front must allow, in seconds (docs/api.md#changes-as-they-happen-wait):
 * a held request sends nothing for its wait, then for the final read of its page.
 */
export const PROXY_IDLE_TIMEOUT_SECONDS = MAX_WAIT_SECONDS + FINAL_READ_SECONDS;
