/**
 * Where in-process durations are read (the key cache's TTL, the interval between accepted requests,
 * the brute-force window): on the monotonic clock, as a wall clock set back an hour would keep a
 * revoked key cached, a key refused and an address blocked for that hour (set forward, skip them).
 * Calendar facts stay on the wall clock, the `now` callers pass: a key's expiry, the quota's UTC day
 * (docs/api.md#limits), lastUsedAt. 'caller' reads that `now` instead, so tests can name instants (as
 * the Redis limiters' 'caller' clock, ratelimit/redis-script.ts); the service never uses it.
 */
export type DurationClock = 'monotonic' | 'caller';

/** The time in ms to measure durations from: performance.now(), or the caller's `now`. */
export function durationNow(clock: DurationClock, now: number): number {
  return clock === 'caller' ? now : performance.now();
}
