import { erasedUserView } from '../meal-host/host-records.js';
import { ACCOUNT } from './host-openapi-account-schemas.js';
import { success } from './host-openapi-answers.js';
import { USER_ID } from './host-paths.js';
import { hostResource } from './host-route-table.js';

/**
 * A user as a whole (docs/host-api.md#erasing-a-user): when a person deletes their account in
 * the diet app, the app erases them here, and whoever holds a copy of their meals through a
 * webhook endpoint hears of it.
 */
export const USER_RESOURCE = hostResource({
  path: '/host/v1/users/{userId}',
  tag: 'Users',
  description: 'A user of the diet app, with everything meal-export holds of them.',
  parameters: [USER_ID],
  operations: {
    DELETE: {
      operationId: 'eraseUser',
      summary:
        "Erases the user: meals and tombstones, keys (connected apps' too), webhook endpoints, sign-in links and sessions, daily counts, the change clock and digest, in one transaction.",
      description:
        "Keys are refused at once, on every instance within 1 s. Each enabled webhook endpoint gets one last signed call, `user.erased`, retried for up to 24 hours, then is removed with its secret. The data is gone from the store's files too (docs/operations.md#erasure-and-backups). A user with nothing answers zeros, so a retry is safe; the same id used again starts empty.",
      answers: {
        '200': success('The user is erased: what there was.', ACCOUNT.ErasedUser, {
          erased: {
            summary: 'A user with meals, a key and an endpoint',
            value: { userId: 'u_42', erased: { meals: 1204, keys: 2, webhooks: 1 } },
          },
          nothing: {
            summary: 'Nothing there (a retry)',
            value: { userId: 'u_42', erased: { meals: 0, keys: 0, webhooks: 0 } },
          },
        }),
      },
      async handle(call, { storage }) {
        const userId = call.id('userId');
        return { body: erasedUserView(userId, await storage.erasure.eraseUser(userId, Date.now())) };
      },
    },
  },
});
