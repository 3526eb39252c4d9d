import path from 'node:path';

/**
 * SQLite has one writer per database file. In one process, an import holds it on a handle of
 * its own for its whole transaction (StorageOptions.serving: the serving handle goes on reading
 * meanwhile); every handle of the process on that file shares this turn, so that:
 * - imports take turns, whichever handle runs them;
 * - a write of a serving handle that meets the write lock while this process's import holds it
 *   waits for that import's end by awaiting, however long the import takes, instead of giving
 *   up after the 5 s a lock of another process is waited for.
 * Writes are thus serialised by the store, for every caller alike (the host API, the app page,
 * `meal-export/host`), and none of them blocks the event loop.
 */
export interface WriterTurn {
  /** Runs `work` when no other import of this process holds the file, holding it until `work` ends. */
  take<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves when the import that holds the file now ends; undefined when none does. */
  held(): Promise<void> | undefined;
}

function createWriterTurn(): WriterTurn {
  let tail: Promise<void> | undefined;
  return {
    take<T>(work: () => Promise<T>): Promise<T> {
      const before = tail ?? Promise.resolve();
      const turn = before.then(work);
      const ended = turn.then(
        () => undefined,
        () => undefined,
      );
      tail = ended;
      void ended.then(() => {
        if (tail === ended) tail = undefined;
      });
      return turn;
    },
    held: () => tail,
  };
}

const turns = new Map<string, WriterTurn>();

/** The turn of a database file, shared by every handle of this process on it; an in-memory store has its own. */
export function writerTurnOf(file: string): WriterTurn {
  if (file === ':memory:') return createWriterTurn();
  const key = path.resolve(file);
  let turn = turns.get(key);
  if (turn === undefined) {
    turn = createWriterTurn();
    turns.set(key, turn);
  }
  return turn;
}
