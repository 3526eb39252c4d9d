/**
 * An import's batches, the first already read: a store opens its transaction, and takes its
 * write lock, only once there is something to write, not while the input is slow to begin (a
 * producer piped into `meals import` that starts late would otherwise hold every other writer,
 * and on SQLite every process opening the store, for as long). A bad first record throws here,
 * before any transaction.
 */
export async function withFirstBatchRead<T>(batches: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const source = batches[Symbol.asyncIterator]();
  return replay(await source.next(), source);
}

async function* replay<T>(first: IteratorResult<T>, source: AsyncIterator<T>): AsyncGenerator<T> {
  try {
    for (let step = first; step.done !== true; step = await source.next()) yield step.value;
  } finally {
    // Left early (a write failed): the input is closed as `for await` would close it.
    await source.return?.();
  }
}
