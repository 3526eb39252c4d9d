import type { Storage, StoreConcerns } from '../storage/storage.js';

/** The name of every call that reaches the store: each concern's methods, ping and close. */
export type StorageMethod =
  { [C in keyof StoreConcerns]: Extract<keyof StoreConcerns[C], string> }[keyof StoreConcerns] | 'ping' | 'close';

/** Told how long each storage call took, in seconds, by method. */
export type StorageTimer = (method: StorageMethod, seconds: number) => void;

type Method = (...args: unknown[]) => unknown;

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A stream is timed from its first read to its last: the whole export. */
async function* timedStream(stream: AsyncIterable<unknown>, done: () => void): AsyncGenerator<unknown> {
  try {
    yield* stream;
  } finally {
    done();
  }
}

function timedMethod(method: Method, name: StorageMethod, timer: StorageTimer): Method {
  return (...args) => {
    const started = performance.now();
    const done = () => timer(name, (performance.now() - started) / 1000);
    const answer = method(...args);
    if (isPromise(answer)) return answer.finally(done);
    return timedStream(answer as AsyncIterable<unknown>, done);
  };
}

function timedConcern<T extends object>(concern: T, timer: StorageTimer): T {
  const timed: Record<string, Method> = {};
  for (const [name, value] of Object.entries(concern)) {
    if (typeof value === 'function') timed[name] = timedMethod(value as Method, name as StorageMethod, timer);
  }
  return timed as T;
}

/**
 * A Storage that times every call of the one it wraps, for /metrics' storage query time
 * (docs/operations.md#metrics), whatever the backend: every method of every concern, found on
 * the object. A failed call is timed too: a store that times out shows as slow, not silent.
 * Change signals set up a watch rather than call the store: they pass as they are.
 */
export function createTimedStorage(storage: Storage, timer: StorageTimer): Storage {
  const concern = <T extends object>(value: T) => timedConcern(value, timer);
  return {
    kind: storage.kind,
    feed: concern(storage.feed),
    writes: concern(storage.writes),
    keys: concern(storage.keys),
    quota: concern(storage.quota),
    signIns: concern(storage.signIns),
    webhooks: concern(storage.webhooks),
    serviceTokens: concern(storage.serviceTokens),
    apps: concern(storage.apps),
    codes: concern(storage.codes),
    erasure: concern(storage.erasure),
    settings: concern(storage.settings),
    signals: storage.signals,
    ping: timedMethod(() => storage.ping(), 'ping', timer) as Storage['ping'],
    close: timedMethod(() => storage.close(), 'close', timer) as Storage['close'],
  };
}
