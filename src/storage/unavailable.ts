import { AppError } from '../errors.js';

/**
 * The contract's 503 `unavailable` for a store that cannot serve now (docs/errors.md),
 * from either adapter. A full disk says so: it is the operator's first question when an
 * import stops (`meals import` prints this message), and waiting does not fix it.
 */
export function storageUnavailable(error: unknown, diskFull: boolean): AppError {
  const message = diskFull ? 'Storage is full: no space is left on its disk.' : 'Storage is unavailable.';
  return new AppError('unavailable', message, { cause: error });
}
