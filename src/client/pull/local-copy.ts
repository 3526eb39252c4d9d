import { formatMealsDigest, type MealsDigest, sameMealsDigest } from '../../domain/meals-digest.js';
import type { MealFileFormat } from '../../meals-io/file-format.js';
import type { SyncPosition, SyncStep } from '../types.js';
import { type AppliedPage, MealMirror } from './meal-mirror.js';
import { MirrorFileError, readMirrorFile, writeMirrorFile } from './mirror-file.js';
import { positionOf, readSyncState, SyncStateError, writeSyncState } from './sync-state-file.js';

export interface LocalCopyFiles {
  readonly url: string;
  readonly statePath: string;
  readonly outPath: string;
  readonly format: MealFileFormat;
}

/** A state or copy that cannot be used, or a key of another user: the message says what to do. */
export class LocalCopyError extends Error {}

export interface LocalCopy {
  /** Where to resume; undefined for a first pull. */
  readonly position: SyncPosition | undefined;
  readonly size: number;
  /** The Meals-Digest of the meals in the copy now. */
  readonly digest: MealsDigest;
  /** Applies a page: the copy is written (atomically), then the position saved (atomically). */
  applyStep(step: SyncStep): Promise<AppliedPage>;
  /** After applying a caught-up step: does the copy hold exactly its digest's meals? Undefined: no digest to check. */
  matches(step: SyncStep): boolean | undefined;
  /** Forgets the copy and the position: the next steps, from the beginning, rebuild --out. */
  startOver(): void;
}

const samePosition = (a: SyncPosition | undefined, b: SyncPosition) =>
  a !== undefined &&
  a.lastModifiedSince === b.lastModifiedSince &&
  a.cursor === b.cursor &&
  a.followSince === b.followSince;

async function loadState(files: LocalCopyFiles) {
  try {
    return await readSyncState(files.statePath);
  } catch (error) {
    if (!(error instanceof SyncStateError)) throw error;
    throw new LocalCopyError(
      `${files.statePath} is not a pull state (${error.message}): delete it to pull everything again`,
    );
  }
}

async function loadMeals(files: LocalCopyFiles) {
  try {
    return await readMirrorFile(files.outPath, files.format);
  } catch (error) {
    if (!(error instanceof MirrorFileError)) throw error;
    throw new LocalCopyError(
      `cannot resume from ${files.outPath}: ${error.message}; delete ${files.statePath} to pull everything again`,
    );
  }
}

/**
 * The copy kept by `pull`: --out (the meals) and --state (where to resume). The position is saved
 * only after the copy is written, so a crash between the two re-applies one page, which changes
 * nothing (docs/sdk.md#pull-your-meals-in-a-csv-file-kept-current). With no state, or a state
 * without its copy, the copy is rebuilt from scratch.
 *
 * Its digest is computed from --out as read, never taken from the state: a file edited by
 * hand since, or written by a run that stopped before saving the state, is judged by what it
 * holds. The state keeps the digest only beside the position, for whoever reads it.
 */
export async function openLocalCopy(files: LocalCopyFiles, notice: (text: string) => void): Promise<LocalCopy> {
  let state = await loadState(files);
  const meals = state === undefined ? [] : await loadMeals(files);
  if (meals === undefined) {
    notice(`${files.outPath} is missing: pulling everything again`);
    state = undefined;
  }
  const mirror = new MealMirror(meals ?? []);
  let position = state === undefined ? undefined : positionOf(state);
  let userId = state?.userId;
  let outWritten = state !== undefined;

  return {
    get position() {
      return position;
    },
    get size() {
      return mirror.size;
    },
    get digest() {
      return mirror.digest;
    },
    async applyStep(step) {
      if (userId !== undefined && step.page.userId !== userId) {
        throw new LocalCopyError(
          `${files.outPath} holds user ${userId}'s meals but this key is user ${step.page.userId}'s: use another --state and --out`,
        );
      }
      userId = step.page.userId;
      if (step.resynced) mirror.clear();
      const applied = mirror.apply(step.page.meals);
      if (!outWritten || step.resynced || step.page.count > 0) {
        await writeMirrorFile(files.outPath, files.format, mirror.values());
        outWritten = true;
      }
      if (!samePosition(position, step.position)) {
        const savedAt = new Date().toISOString();
        const digest = formatMealsDigest(mirror.digest);
        await writeSyncState(files.statePath, {
          version: 1,
          url: files.url,
          userId,
          ...step.position,
          digest,
          savedAt,
        });
        position = step.position;
      }
      return applied;
    },
    matches(step) {
      return step.digest === null ? undefined : sameMealsDigest(mirror.digest, step.digest);
    },
    startOver() {
      mirror.clear();
      position = undefined;
      outWritten = false;
    },
  };
}
