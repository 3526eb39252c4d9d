import type { WebhookEndpointRecord } from './webhook-records.js';
import { parsedUrl } from './parsed-url.js';

/**
 * The rules of webhook endpoints (docs/webhooks.md#registering-an-endpoint), in one place for `webhooks …`, the
 * host module and the app page: what URL may be registered, how many endpoints a user has,
 * how long a rotated secret keeps signing.
 */
export const MAX_WEBHOOKS_PER_USER = 5;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_NAME_LENGTH = 100;
/** After a rotation, every call is signed with both secrets for this long. */
export const PREVIOUS_SECRET_LIFETIME_MS = 24 * 60 * 60 * 1000;

const CONTROL_OR_SPACE_RE = /[\p{Cc}\s]/u;
const CONTROL_CHARACTER_RE = /\p{Cc}/u;
/** `https://` (any case, as URLs allow), then the authority up to the path, query or fragment. */
const HTTPS_AUTHORITY_RE = /^https:\/\/([^/?#]*)/i;

/** Why a URL cannot be registered, in words fit for one line; undefined when it can. */
export function webhookUrlProblem(text: string): string | undefined {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) {
    return `a webhook URL is at most ${MAX_WEBHOOK_URL_LENGTH} characters (this one has ${text.length})`;
  }
  const authority = HTTPS_AUTHORITY_RE.exec(text)?.[1];
  if (authority === undefined) return 'a webhook URL must start with https://';
  // URL parsers drop tabs and newlines and trim spaces: what is stored must be what is called.
  if (CONTROL_OR_SPACE_RE.test(text)) return 'a webhook URL must not contain spaces or control characters';
  // Any `@` in the authority: `user@`, `user:pass@`, even an empty `@`.
  if (authority.includes('@')) return 'a webhook URL must not contain a user name or password';
  // `https:///x` would call the host `x`: the parser skips the missing authority.
  if (authority === '') return 'a webhook URL must name a host';
  const url = parsedUrl(text);
  if (url === undefined) return 'a webhook URL must be a valid https:// URL';
  if (url.hostname === '') return 'a webhook URL must name a host';
  return undefined;
}

/** Why a name cannot be given to an endpoint; undefined when it can. */
export function webhookNameProblem(name: string): string | undefined {
  if (name.length > MAX_WEBHOOK_NAME_LENGTH || CONTROL_CHARACTER_RE.test(name)) {
    return `a webhook's name is at most ${MAX_WEBHOOK_NAME_LENGTH} characters of text`;
  }
  return undefined;
}

export interface WebhookRequest {
  readonly userId: string;
  readonly url: string;
  /** A label the user picks; "" for none. */
  readonly name: string;
}

/**
 * The endpoint's id, chosen by the caller ahead of time (the app page's add form), so that
 * sending the same form twice makes one endpoint: the second is refused as `duplicate_id`.
 */
export interface ChosenWebhookId {
  readonly id: string;
}

export type WebhookRefusal = 'invalid_url' | 'invalid_name' | 'too_many_webhooks' | 'duplicate_id';

export type RegisteredWebhook<Refusal extends WebhookRefusal = Exclude<WebhookRefusal, 'duplicate_id'>> =
  | { readonly ok: true; readonly endpoint: WebhookEndpointRecord }
  | {
      readonly ok: false;
      readonly reason: Refusal;
      /** One line, fit to show the user. */
      readonly message: string;
    };
