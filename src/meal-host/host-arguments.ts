import { parsedUrl } from '../domain/parsed-url.js';
import { isValidUserId } from '../domain/user-id.js';
import { MealHostError } from './meal-host-error.js';

/** The arguments every host method checks before it reads the store. */
export function checkUserId(userId: string): void {
  if (!isValidUserId(userId)) {
    throw new MealHostError('invalid_user_id', 'a user id is 1 to 200 printable characters');
  }
}

/** `publicUrl`, the base of login links: an origin (`https://meals.example.com`), no path. */
export function originOf(publicUrl: string): string {
  const url = parsedUrl(publicUrl);
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.pathname !== '/') {
    throw new MealHostError('invalid_argument', `publicUrl must be an origin such as https://meals.example.com`);
  }
  return url.origin;
}
