import { heavyUserPage } from './heavy-user-page.js';

/** Page of 5000: the largest page, as a first full sync reads it, against the ceiling. */
export const page5000 = heavyUserPage(5000, 'How close to the ceiling is a page of 5000 meals (a first full sync)?');
