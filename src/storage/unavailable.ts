import { AppError } from '../errors.js';

/** Why a store could not serve a call: its disk is full, another connection holds its write lock for a moment, or it is out of reach. */
export type UnavailableReason = 'disk_full' | 'busy' | 'unreachable';

/**
 * The contract's 503 `unavailable` for a store that cannot serve now (docs/errors.md), from
 * either adapter, with its reason for the callers that wait and try again.
 */
export class StoreUnavailable extends AppError {
  constructor(
    readonly reason: UnavailableReason,
    cause: unknown,
  ) {
    // A full disk says so: it is the operator's first question when an import stops (`meals
    // import` prints this message), and waiting does not fix it.
    super(
      'unavailable',
      reason === 'disk_full' ? 'Storage is full: no space is left on its disk.' : 'Storage is unavailable.',
      {
        cause,
      },
    );
  }
}

export function storageUnavailable(error: unknown, reason: UnavailableReason): StoreUnavailable {
  return new StoreUnavailable(reason, error);
}

/**
 * Whether a failure is another connection's write lock, held for a moment (SQLite's one writer,
 * met by a serving process's background call, which does not wait for it): worth trying again
 * within a fraction of a second, where an outage is tried again after seconds.
 */
export function isMomentarilyBusy(error: unknown): boolean {
  return error instanceof StoreUnavailable && error.reason === 'busy';
}
