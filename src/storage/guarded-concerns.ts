/**
 * What a call needs from the backend that runs it, declared beside each interface, read by every call policy:
 * - `long`: may rightly take long (an import, an hourly prune): only driver failures are reported, as
 *   a deadline would report a failure for a transaction that still commits after it;
 * - `background`: can wait for the caller's next turn, so a serving process never waits for another
 *   connection's write lock (StorageOptions.serving);
 * - `exclusive`: holds the handle's connection across awaits (an import on SQLite);
 * - `stream`: answers an AsyncIterable, whose reading is guarded rather than a promise.
 */
export type CallTrait = 'long' | 'background' | 'exclusive' | 'stream';

export type CallTraits<T> = { readonly [K in keyof T]?: readonly CallTrait[] };

/** How a backend runs its calls: driver failures become AppError('unavailable') there. */
export interface CallPolicy {
  /** Runs one call; `work` answers synchronously (SQLite) or with a promise. */
  run(traits: ReadonlySet<CallTrait>, work: () => unknown): Promise<unknown>;
  /** What an error thrown while a stream is read becomes. */
  streamError(error: unknown): unknown;
}

/**
 * A concern as a backend implements it: each method answers its value or a promise of it (a
 * stream: any iterable), so SQLite's synchronous driver and PostgreSQL's asynchronous one fit.
 */
export type Implementation<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => R | Promise<R>
    : T[K] extends (...args: infer A) => AsyncIterable<infer R>
      ? (...args: A) => Iterable<R> | AsyncIterable<R>
      : T[K];
};

type Method = (...args: unknown[]) => unknown;

async function* guardedStream(open: () => unknown, policy: CallPolicy): AsyncGenerator<unknown> {
  try {
    yield* open() as AsyncIterable<unknown> | Iterable<unknown>;
  } catch (error) {
    throw policy.streamError(error);
  }
}

/**
 * The concern as its callers see it: every method run by the backend's policy, with the traits
 * its interface declares. Methods are found on the object, never listed again by hand.
 */
export function guardConcern<T extends object>(
  implementation: Implementation<T>,
  traits: CallTraits<T>,
  policy: CallPolicy,
): T {
  const guarded: Record<string, Method> = {};
  for (const [name, value] of Object.entries(implementation)) {
    if (typeof value !== 'function') continue;
    const method = value as Method;
    const own = new Set<CallTrait>(traits[name as keyof T] ?? []);
    guarded[name] = own.has('stream')
      ? (...args) => guardedStream(() => method(...args), policy)
      : (...args) => policy.run(own, () => method(...args));
  }
  return guarded as unknown as T;
}
