import { resolveDatabase } from '../config.js';
import { describeAttemptOutcome, waitingReason } from '../domain/webhook-attempt-outcome.js';
import { queueWebhookTest, registerWebhook, rotateWebhookSecret } from '../webhooks/webhook-endpoints.js';
import { CliError } from '../errors.js';
import { EXISTING_STORE, withStorage } from '../storage/open-storage.js';
import {
  attemptInfo,
  createdWebhookView,
  deletedView,
  enabledWebhookView,
  queuedTestView,
  rotatedSecretView,
  webhookInfo,
} from '../meal-host/host-records.js';
import { expectPositionals, parseCommandArgs, requireFlag, requireUserId, USER_FLAG } from './command-args.js';
import { runGroup } from './command-group.js';
import { printResult } from './output.js';

const USAGE = {
  create: 'meal-export webhooks create --user ID --url https://… [--name NAME] [--db FILE] [--json]',
  list: 'meal-export webhooks list --user ID [--db FILE] [--json]',
  delete: 'meal-export webhooks delete WEBHOOK_ID [--db FILE] [--json]',
  enable: 'meal-export webhooks enable WEBHOOK_ID [--db FILE] [--json]',
  rotateSecret: 'meal-export webhooks rotate-secret WEBHOOK_ID [--db FILE] [--json]',
  test: 'meal-export webhooks test WEBHOOK_ID [--db FILE] [--json]',
  attempts: 'meal-export webhooks attempts WEBHOOK_ID [--db FILE] [--json]',
};

/** `webhooks create|list|delete|enable|rotate-secret|test|attempts` (docs/cli.md#webhooks). */
export async function runWebhooks(argv: string[]): Promise<void> {
  return runGroup(
    'webhooks',
    {
      create: { usage: USAGE.create, run: createWebhook },
      list: { usage: USAGE.list, run: listWebhooks },
      delete: { usage: USAGE.delete, run: deleteWebhook },
      enable: { usage: USAGE.enable, run: enableWebhook },
      'rotate-secret': { usage: USAGE.rotateSecret, run: rotateSecret },
      test: { usage: USAGE.test, run: testWebhook },
      attempts: { usage: USAGE.attempts, run: listAttempts },
    },
    argv,
  );
}

const unknown = (id: string) => new CliError(`no webhook with id ${id}`);

async function createWebhook(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      ...USER_FLAG,
      url: { type: 'string', value: 'https://…', required: true, help: 'where the calls go' },
      name: { type: 'string', default: '', value: 'NAME', help: 'a label, shown by webhooks list' },
    },
    USAGE.create,
  );
  expectPositionals(positionals, 0, USAGE.create);
  const userId = requireUserId(values.user, USAGE.create);
  const url = requireFlag(values.url, 'url', USAGE.create);
  const result = await withStorage(resolveDatabase(values.db), (storage) =>
    registerWebhook(storage.webhooks, { userId, url, name: values.name }, Date.now()),
  );
  if (!result.ok) throw new CliError(result.message, { usage: result.reason !== 'too_many_webhooks' });
  const { endpoint } = result;
  printResult(
    values.json,
    createdWebhookView(endpoint),
    `${endpoint.secret}\n\nwebhook ${endpoint.id} for user ${userId} calls ${endpoint.url}.\nThis is the only time the signing secret is shown: store it with the receiving server now.`,
  );
}

async function listWebhooks(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USER_FLAG, USAGE.list);
  expectPositionals(positionals, 0, USAGE.list);
  const userId = requireUserId(values.user, USAGE.list);
  // The endpoint keeps only the last status; its newest logged attempt also says why there was none.
  const rows = await withStorage(
    resolveDatabase(values.db),
    async (storage) => {
      const endpoints = await storage.webhooks.listWebhooks(userId);
      return Promise.all(
        endpoints.map(async (endpoint) => ({
          view: webhookInfo(endpoint),
          last: (await storage.webhooks.listWebhookAttempts(endpoint.id))[0],
        })),
      );
    },
    EXISTING_STORE,
  );
  const lines = rows.map(({ view: e, last }) => {
    const fate = describeAttemptOutcome(last ?? { status: e.lastStatus, error: null });
    const outcome = e.lastAttemptAt === null ? 'never' : `${e.lastAttemptAt} (${fate})`;
    const waiting = waitingReason(last);
    const line = `${e.id}  ${e.status.padEnd(8)}  ${e.url}  last attempt ${outcome}${e.name === '' ? '' : `  ${e.name}`}`;
    return waiting === undefined ? line : `${line}\n    ${waiting}`;
  });
  const endpoints = rows.map((row) => row.view);
  printResult(values.json, endpoints, lines.length === 0 ? `no webhooks for user ${userId}` : lines.join('\n'));
}

/** The one argument of the commands on an existing endpoint. */
function endpointArgs(argv: string[], usage: string) {
  const { values, positionals } = parseCommandArgs(argv, {}, usage);
  const [id = ''] = expectPositionals(positionals, 1, usage);
  return { id, db: resolveDatabase(values.db), json: values.json };
}

async function deleteWebhook(argv: string[]): Promise<void> {
  const { id, db, json } = endpointArgs(argv, USAGE.delete);
  if (!(await withStorage(db, (storage) => storage.webhooks.deleteWebhook(id), EXISTING_STORE))) throw unknown(id);
  printResult(json, deletedView(id), `deleted webhook ${id}, with its pending calls and attempts`);
}

async function enableWebhook(argv: string[]): Promise<void> {
  const { id, db, json } = endpointArgs(argv, USAGE.enable);
  if (!(await withStorage(db, (storage) => storage.webhooks.enableWebhook(id, Date.now()), EXISTING_STORE)))
    throw unknown(id);
  printResult(json, enabledWebhookView(id), `enabled webhook ${id}: its pending calls are sent now`);
}

async function rotateSecret(argv: string[]): Promise<void> {
  const { id, db, json } = endpointArgs(argv, USAGE.rotateSecret);
  const secret = await withStorage(
    db,
    (storage) => rotateWebhookSecret(storage.webhooks, id, Date.now()),
    EXISTING_STORE,
  );
  if (secret === undefined) throw unknown(id);
  printResult(
    json,
    rotatedSecretView(id, secret),
    `${secret}\n\nthe new signing secret of webhook ${id}; for 24 hours every call is signed with the previous one too.\nThis is the only time it is shown.`,
  );
}

async function testWebhook(argv: string[]): Promise<void> {
  const { id, db, json } = endpointArgs(argv, USAGE.test);
  const eventId = await withStorage(
    db,
    (storage) => queueWebhookTest(storage.webhooks, id, Date.now()),
    EXISTING_STORE,
  );
  if (eventId === undefined) throw unknown(id);
  printResult(json, queuedTestView(id, eventId), `queued a webhook.test call to webhook ${id} (webhook-id ${eventId})`);
}

async function listAttempts(argv: string[]): Promise<void> {
  const { id, db, json } = endpointArgs(argv, USAGE.attempts);
  const attempts = await withStorage(
    db,
    async (storage) =>
      (await storage.webhooks.findWebhook(id)) === undefined ? undefined : storage.webhooks.listWebhookAttempts(id),
    EXISTING_STORE,
  );
  if (attempts === undefined) throw unknown(id);
  const views = attempts.map(attemptInfo);
  const lines = views.map((a) => `${a.at}  ${a.eventId}  ${describeAttemptOutcome(a)}  ${a.ms} ms`);
  printResult(json, views, lines.length === 0 ? `no attempts yet for webhook ${id}` : lines.join('\n'));
}
