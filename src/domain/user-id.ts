/**
 * User ids come from the app: opaque text. They are kept printable and bounded so that they
 * are safe in logs, file names of exports and JSON.
 */
const USER_ID_RE = /^[^\p{Cc}]{1,200}$/u;

export function isValidUserId(text: string): boolean {
  return USER_ID_RE.test(text);
}

/** The rule in words, for every refusal of a user id. */
export const USER_ID_RULE = 'userId must be 1 to 200 characters, none of them a control character';
