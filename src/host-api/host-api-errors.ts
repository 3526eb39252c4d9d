import { AppError } from '../errors.js';
import type { MealRefusal } from '../meal-host/host-meal-operations.js';

/** A field at fault as the host API answers it: the ids of the path are its parameters (400), the rest the record's (422). */
export function refusalError(refusal: MealRefusal, line?: number): AppError {
  if (refusal.reason === 'foreign_id') {
    return new AppError('id_taken', refusal.message, line === undefined ? {} : { line });
  }
  // Each message is one sentence already, its field named as written (docs/errors.md#messages).
  const { message } = refusal;
  if (refusal.inPath === true && refusal.field !== undefined) {
    return new AppError('invalid_parameter', message, { param: refusal.field });
  }
  return new AppError('invalid_record', message, {
    ...(refusal.field === undefined ? {} : { param: refusal.field }),
    ...(line === undefined ? {} : { line }),
  });
}

/** `404 not_found` for an id of the store's that is unknown (another user's is as unknown). */
export function unknownId(what: string): AppError {
  return new AppError('not_found', `No such ${what}.`);
}
