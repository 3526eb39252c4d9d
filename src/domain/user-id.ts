/**
 * User ids come from the app: opaque text. They are kept printable and bounded so that they
 * are safe in logs, file names of exports and JSON.
 */
const USER_ID_RE = /^[^\p{Cc}]{1,200}$/u;

export function isValidUserId(text: string): boolean {
  return USER_ID_RE.test(text);
}
