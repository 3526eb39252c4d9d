/**
 * Where in-process durations are read. A duration (the key cache's TTL,
 * the interval between accepted requests, the brute-force window) is measured on the process's
 * monotonic clock, which never steps: a wall clock set back by an hour would otherwise keep a
 * revoked key cached, a key refused and an address blocked for that hour, and one set forward
 * would skip them. Calendar facts stay on the wall clock, the `now` callers pass: a key's
 * expiry instant, the UTC day of the daily quota (docs/api.md#limits), lastUsedAt.
 *
 * 'caller' reads the `now` each call is given instead, so that tests can name instants, as
 * the Redis limiters' 'caller' clock does (ratelimit/redis-script.ts); the service never uses it.
 */
export type DurationClock = 'monotonic' | 'caller';

/** The time in ms to measure durations from: performance.now(), or the caller's `now`. */
export function durationNow(clock: DurationClock, now: number): number {
  return clock === 'caller' ? now : performance.now();
}
