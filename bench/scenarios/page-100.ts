import { heavyUserPage } from './heavy-user-page.js';

/** Page of 100: a heavy user's first page of 100 meals, against the ceiling. */
export const page100 = heavyUserPage(100, 'How close to the ceiling is a page of 100 meals?');
