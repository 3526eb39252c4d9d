/** What a `meal-export/host` call can refuse, each a stable code the app's back end can branch on. */
export type MealHostErrorCode =
  /** A meal record breaks the `meals import` rules; `index` names it. Nothing was written. */
  | 'invalid_meal'
  /**
   * A meal id belongs to another user; `index` names it (none for deleteMeal). Nothing was
   * written. The host API's word for it too (`409 id_taken`): one vocabulary for both doors.
   */
  | 'id_taken'
  /** The user already holds the 10 active keys allowed (docs/cli.md#keys). */
  | 'too_many_keys'
  /** A webhook URL that is not https://, is over 2048 characters or holds a user or password. */
  | 'invalid_webhook_url'
  /** The user already has the 5 webhook endpoints allowed (docs/webhooks.md#registering-an-endpoint). */
  | 'too_many_webhooks'
  /** A user id that is empty, over 200 characters or with control characters. */
  | 'invalid_user_id'
  /**
   * An `expiresIn` that is not like 90s, 30m, 12h or 30d, a public URL that is not an origin,
   * a webhook name over 100 characters, a service token name not 1 to 100 characters, an app
   * registration that breaks its rules (docs/host-api.md#apps-connect), or a deleteMeal
   * sourceVersion that is not an integer 0 … 2^53 - 1.
   */
  | 'invalid_argument';

export class MealHostError extends Error {
  readonly code: MealHostErrorCode;
  /** For invalid_meal and id_taken: the position of the record at fault in the input. */
  readonly index: number | undefined;

  constructor(code: MealHostErrorCode, message: string, index?: number) {
    super(message);
    this.name = 'MealHostError';
    this.code = code;
    this.index = index;
  }
}
