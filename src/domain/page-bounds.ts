/** How many meals a page holds, and how long a long poll may wait (docs/api.md#the-call). */

export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 5000;
/** The longest long poll, in seconds (docs/api.md#changes-as-they-happen-wait). */
export const MAX_WAIT_SECONDS = 120;
