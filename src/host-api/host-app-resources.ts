import { appNameFault, homepageUrlFault, redirectUrisFault } from '../domain/app-registration.js';
import { AppError } from '../errors.js';
import { appView, createdAppView, rotatedAppSecretView } from '../meal-host/host-app-records.js';
import { deletedView } from '../meal-host/host-records.js';
import { errorExample } from '../openapi/answers.js';
import { registerApp, rotateAppSecret } from '../keys/register-app.js';
import { objectBody } from './host-body-schema.js';
import { unknownId } from './host-api-errors.js';
import { APP_COMPONENTS, createAppRequestSchema } from './host-openapi-app-schemas.js';
import { invalidRecord, notFound, success } from './host-openapi-answers.js';
import { storeIdParameter } from './host-paths.js';
import { hostResource, type HostResource } from './host-route-table.js';

/**
 * Third-party apps, registered by the operator (docs/host-api.md#apps-connect): each gets an id
 * and a client secret, with which it asks people for a key of their own (docs/connect.md).
 */

const TAG = 'Apps';

const APP = {
  id: 'app_3vQ8kLm2Xp9RtY4s',
  name: 'Coach Pro',
  redirectUris: ['https://coach.example/oauth/callback', 'http://127.0.0.1:8765/callback'],
  homepageUrl: 'https://coach.example',
  createdAt: '2026-11-01T08:00:00.000Z',
};
const SECRET = `mxa_${'7Hk2'.repeat(12)}Q`;

const APP_ID = storeIdParameter('appId', 'An app id (app_…) from registering or listing apps.', APP.id);
const UNKNOWN_APP = notFound('app', 'no app has this id.');
const REDIRECT_FAULT = 'A redirect URI is an https:// URL, or http:// to 127.0.0.1, [::1] or localhost.';

const CREATE_APP_BODY = objectBody({
  component: 'CreateAppRequest',
  schema: createAppRequestSchema,
  required: true,
  examples: {
    app: {
      summary: 'An app with its homepage',
      value: { name: APP.name, redirectUris: APP.redirectUris, homepageUrl: APP.homepageUrl },
    },
    bare: { summary: 'Name and one redirect URI', value: { name: 'Coach', redirectUris: [APP.redirectUris[0]] } },
  },
  // The rules' own sentences, as `apps create` words them.
  faults: { name: (name) => appNameFault(name.trim()), redirectUris: redirectUrisFault, homepageUrl: homepageUrlFault },
});

export const APPS_RESOURCE = hostResource({
  path: '/host/v1/apps',
  tag: TAG,
  description: 'The apps registered.',
  parameters: [],
  operations: {
    POST: {
      operationId: 'createApp',
      summary: 'Registers a third-party app: its id and client secret.',
      description:
        "The client secret is in this answer only: hand it to the app's developer at once. Redirect URIs are matched character for character.",
      body: CREATE_APP_BODY,
      answers: {
        '201': success('The new app, with its client secret.', APP_COMPONENTS.CreatedApp, {
          created: { summary: 'An app', value: { ...APP, clientSecret: SECRET } },
        }),
        '422': invalidRecord(
          'the body is not a JSON object, has another field than name, redirectUris and homepageUrl, or one of them is wrong.',
          errorExample('invalid_record', REDIRECT_FAULT, 'redirectUris', 'bad_redirectUris'),
          errorExample('invalid_record', 'name must be 1 to 100 characters of text.', 'name', 'bad_name'),
          errorExample('invalid_record', 'Unknown field "scope".', 'scope', 'unknown_field'),
        ),
      },
      async handle(call, { storage }) {
        const { name, redirectUris, homepageUrl } = call.bodyOf(CREATE_APP_BODY);
        const registered = await registerApp(storage.apps, { name, redirectUris, homepageUrl }, Date.now());
        if (!registered.ok) {
          throw new AppError('invalid_record', registered.fault.message, { param: registered.fault.param });
        }
        return { body: createdAppView(registered.record, registered.secret) };
      },
    },
    GET: {
      operationId: 'listApps',
      headId: 'headApps',
      summary: 'Every app registered, oldest first: never a secret.',
      description: 'An empty list when none is.',
      answers: {
        '200': success('The apps.', APP_COMPONENTS.AppList, {
          apps: { summary: 'One app', value: [APP] },
          none: { summary: 'No app', value: [] },
        }),
      },
      async handle(_call, { storage }) {
        return { body: (await storage.apps.listApps()).map(appView) };
      },
    },
  },
});

export const APP_RESOURCE = hostResource({
  path: '/host/v1/apps/{appId}',
  tag: TAG,
  description: 'One app.',
  parameters: [APP_ID],
  operations: {
    GET: {
      operationId: 'getApp',
      headId: 'headApp',
      summary: 'The app: never its secret.',
      description: 'As the list shows it.',
      answers: {
        '200': success('The app.', APP_COMPONENTS.App, { app: { summary: 'An app', value: APP } }),
        '404': UNKNOWN_APP,
      },
      async handle(call, { storage }) {
        const record = await storage.apps.findApp(call.id('appId'));
        if (record === undefined) throw unknownId('app');
        return { body: appView(record) };
      },
    },
    DELETE: {
      operationId: 'deleteApp',
      summary: 'Deletes the app and revokes every key people granted it.',
      description: 'Those keys are refused on every instance within 1 s; its client secret is refused at once.',
      answers: {
        '200': success('The app is deleted.', APP_COMPONENTS.DeletedApp, {
          deleted: { summary: 'Deleted', value: { id: APP.id, deleted: true } },
        }),
        '404': UNKNOWN_APP,
      },
      async handle(call, { storage }) {
        const id = call.id('appId');
        if ((await storage.apps.deleteApp(id, Date.now())) === undefined) throw unknownId('app');
        return { body: deletedView(id) };
      },
    },
  },
});

export const APP_SECRET_RESOURCE = hostResource({
  path: '/host/v1/apps/{appId}/rotate-secret',
  tag: TAG,
  description: "Rotating an app's client secret.",
  parameters: [APP_ID],
  operations: {
    POST: {
      operationId: 'rotateAppSecret',
      summary: 'A new client secret for the app.',
      description:
        'The previous secret is refused at once: give the app its new one first. Keys people granted it keep working.',
      answers: {
        '200': success('The new secret, shown once.', APP_COMPONENTS.RotatedAppSecret, {
          rotated: { summary: 'A new secret', value: { id: APP.id, clientSecret: `mxa_${'Pq4n'.repeat(12)}Z` } },
        }),
        '404': UNKNOWN_APP,
      },
      async handle(call, { storage }) {
        const rotated = await rotateAppSecret(storage.apps, call.id('appId'), Date.now());
        if (rotated === undefined) throw unknownId('app');
        return { body: rotatedAppSecretView(rotated.record.id, rotated.secret) };
      },
    },
  },
});

export const APP_RESOURCES: readonly HostResource[] = [APPS_RESOURCE, APP_RESOURCE, APP_SECRET_RESOURCE];
