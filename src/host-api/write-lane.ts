/**
 * Where the host API's writes queue. On SQLite an import holds the store's one write lock
 * while its body streams in, on a handle of its own (host-import.ts); a write of the serving
 * handle meanwhile would wait for that lock in SQLite's busy loop, which blocks the event loop.
 * So the host API's writes take turns here instead, awaiting rather than blocking. PostgreSQL
 * needs no turns: each write has a connection, and a user's writes serialise on its clock row.
 */
export type WriteLane = <T>(work: () => Promise<T>) => Promise<T>;

/** Every write runs alone, in the order asked. */
export function createWriteLane(): WriteLane {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const turn = tail.then(work, work);
    // The next write waits for this one's end, whatever became of it.
    tail = turn.catch(() => undefined);
    return turn;
  };
}

/** No turns: each write goes at once. */
export const OPEN_LANE: WriteLane = (work) => work();
