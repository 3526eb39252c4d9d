/**
 * Meal ids come from the app (or are made by an import): unique across all users, echoed in
 * URLs, logs and CSV cells, so kept bounded, printable and well-formed Unicode.
 */
export const MAX_MEAL_ID_LENGTH = 200;
// C0 controls, DEL and C1 controls.
const CONTROL_CHARACTER_RE = /\p{Cc}/u;
// With the u flag a surrogate pair is one code point, so this matches lone surrogates only: a
// string that is not well-formed Unicode (JSON's "\ud800"). UTF-8 has no encoding for them, so
// the store would keep U+FFFD for each and "\ud800" and "\udc00" would become one id.
const LONE_SURROGATE_RE = /\p{Cs}/u;

/** The number of code points of a text (a lone surrogate counts as one). */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** False for text holding a lone surrogate: not well-formed Unicode, with no UTF-8 form. */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE_RE.test(text);
}

/** What is wrong with a meal id, in words after "id must …", or undefined when it is a good one. */
export function mealIdFault(id: string): string | undefined {
  if (id.length === 0) return 'not be empty';
  // Characters are code points, as for user ids and JSON Schema's maxLength (docs/api.md#ids):
  // 150 emoji are 150 characters, not the 300 UTF-16 units JavaScript's length counts.
  if (id.length > MAX_MEAL_ID_LENGTH && codePoints(id) > MAX_MEAL_ID_LENGTH) {
    return `be at most ${MAX_MEAL_ID_LENGTH} characters`;
  }
  if (CONTROL_CHARACTER_RE.test(id)) return 'not contain control characters';
  if (!isWellFormedText(id)) return 'be well-formed Unicode';
  return undefined;
}
