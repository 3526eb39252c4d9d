import { writeFileAtomically } from '../../meals-io/atomic-file.js';
import { readTextIfExists } from '../../meals-io/read-input.js';
import { parseMealsDigest } from '../../domain/meals-digest.js';
import type { SyncPosition } from '../types.js';

/**
 * What `pull --state FILE` keeps between runs: the position to resume from
 * (docs/api.md#staying-in-sync: lastModifiedSince + cursor resume with no duplicates and no gaps),
 * and whose meals they are, so that one copy never mixes two users.
 */
export interface SyncState {
  readonly version: 1;
  readonly url: string;
  readonly userId: string;
  readonly lastModifiedSince: string;
  readonly cursor: string | null;
  readonly followSince: string | null;
  /**
   * The Meals-Digest of --out when the position was saved (docs/api.md#verifying-a-copy-meals-digest),
   * as the header writes it. Absent from states saved before it.
   */
  readonly digest?: string;
  readonly savedAt: string;
}

export class SyncStateError extends Error {}

export function positionOf(state: SyncState): SyncPosition {
  return { lastModifiedSince: state.lastModifiedSince, cursor: state.cursor, followSince: state.followSince };
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isTextOrNull = (value: unknown): value is string | null => value === null || isText(value);

/** The saved state; undefined when the file does not exist. */
export async function readSyncState(file: string): Promise<SyncState | undefined> {
  const text = await readTextIfExists(file);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SyncStateError('not JSON');
  }
  const state = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const valid =
    state.version === 1 &&
    isText(state.url) &&
    isText(state.userId) &&
    isText(state.lastModifiedSince) &&
    isTextOrNull(state.cursor) &&
    isTextOrNull(state.followSince === undefined ? null : state.followSince) &&
    (state.digest === undefined || (typeof state.digest === 'string' && parseMealsDigest(state.digest) !== undefined));
  if (!valid) throw new SyncStateError('not a pull state (version 1)');
  return { ...(state as unknown as SyncState), followSince: (state.followSince as string | null | undefined) ?? null };
}

/** Write then rename (atomic-file.ts): a crash leaves the previous state or the new one. */
export async function writeSyncState(file: string, state: SyncState): Promise<void> {
  await writeFileAtomically(file, async (sink) => {
    await sink.write(`${JSON.stringify(state, null, 2)}\n`);
  });
}
