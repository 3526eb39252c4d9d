import { queueWebhookTest, registerWebhook, rotateWebhookSecret } from '../webhooks/webhook-endpoints.js';
import type { Storage } from '../storage/storage.js';
import type { MealHost } from './meal-host-types.js';
import { checkUserId } from './host-arguments.js';
import { MealHostError, type MealHostErrorCode } from './meal-host-error.js';
import { attemptInfo, createdWebhookView, queuedTestView, rotatedSecretView, webhookInfo } from './host-records.js';

/** The host's webhook methods: `webhooks …` of the command line, for the app's code. */
export type HostWebhooks = Pick<
  MealHost,
  | 'createWebhook'
  | 'listWebhooks'
  | 'deleteWebhook'
  | 'enableWebhook'
  | 'rotateWebhookSecret'
  | 'testWebhook'
  | 'listWebhookAttempts'
>;

const WEBHOOK_REFUSALS = {
  invalid_url: 'invalid_webhook_url',
  invalid_name: 'invalid_argument',
  too_many_webhooks: 'too_many_webhooks',
} as const satisfies Record<string, MealHostErrorCode>;

export function createHostWebhooks(storage: Storage): HostWebhooks {
  /** Only the user's own endpoint: another user's id is as unknown as a made-up one. */
  async function ownsWebhook(userId: string, webhookId: string): Promise<boolean> {
    checkUserId(userId);
    return (await storage.webhooks.findWebhook(webhookId))?.userId === userId;
  }
  return {
    async createWebhook(userId, url, webhookOptions = {}) {
      checkUserId(userId);
      const result = await registerWebhook(
        storage.webhooks,
        { userId, url, name: webhookOptions.name ?? '' },
        Date.now(),
      );
      if (!result.ok) throw new MealHostError(WEBHOOK_REFUSALS[result.reason], result.message);
      // The command's view, but the caller named the user: it is not said back.
      const { userId: _userId, ...created } = createdWebhookView(result.endpoint);
      return created;
    },

    async listWebhooks(userId) {
      checkUserId(userId);
      return (await storage.webhooks.listWebhooks(userId)).map(webhookInfo);
    },

    async deleteWebhook(userId, webhookId) {
      return (await ownsWebhook(userId, webhookId)) && storage.webhooks.deleteWebhook(webhookId);
    },

    async enableWebhook(userId, webhookId) {
      return (await ownsWebhook(userId, webhookId)) && storage.webhooks.enableWebhook(webhookId, Date.now());
    },

    async rotateWebhookSecret(userId, webhookId) {
      if (!(await ownsWebhook(userId, webhookId))) return undefined;
      const secret = await rotateWebhookSecret(storage.webhooks, webhookId, Date.now());
      return secret === undefined ? undefined : rotatedSecretView(webhookId, secret);
    },

    async testWebhook(userId, webhookId) {
      if (!(await ownsWebhook(userId, webhookId))) return undefined;
      const eventId = await queueWebhookTest(storage.webhooks, webhookId, Date.now());
      return eventId === undefined ? undefined : queuedTestView(webhookId, eventId);
    },

    async listWebhookAttempts(userId, webhookId) {
      if (!(await ownsWebhook(userId, webhookId))) return [];
      return (await storage.webhooks.listWebhookAttempts(webhookId)).map(attemptInfo);
    },
  };
}
