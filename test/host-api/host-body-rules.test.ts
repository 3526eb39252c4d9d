import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import type { ObjectBodyDeclaration, ObjectSchema } from '../../src/host-api/host-body-schema.js';
import type { HostMethod } from '../../src/host-api/host-route-table.js';
import { HOST_RESOURCES } from '../../src/host-api/host-routes.js';
import { MEAL_COMPONENTS } from '../../src/host-api/host-openapi-schemas.js';
import { type HostApiServer, hostCall, hostRecord, mealPath, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { newUserId } from '../support/server.js';

// Each JSON body of the host API is checked by its one schema, the one its document names
// (host-body-schema.ts): every rule of every field is enforced, each refusal is the contract's
// 422 invalid_record naming the field (docs/host-api.md#errors), and worded as the domain words
// that rule for the command line. The bad values are made from the schemas themselves, so a rule
// added to a schema is tried here without a line of this test changing.

interface FieldSchema {
  readonly type?: string | readonly string[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly items?: FieldSchema;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
}

interface DeclaredBody {
  readonly method: HostMethod;
  readonly path: string;
  readonly declared: ObjectBodyDeclaration<ObjectSchema>;
}

const BODIES: readonly DeclaredBody[] = HOST_RESOURCES.flatMap((resource) =>
  Object.entries(resource.operations).flatMap(([method, operation]) =>
    operation?.body?.kind === 'object'
      ? [{ method: method as HostMethod, path: resource.path, declared: operation.body }]
      : [],
  ),
);

/** Texts a pattern may refuse: one of them breaks each pattern of the schemas. */
const TEXTS = ['', 'x', '1', ' x', '//x', '/\\x', 'http://x.example', 'https:x', 'mailto:x'];

/** Values that break `schema`, each with the keyword it breaks; `valid` is a value it takes. */
function badValues(schema: FieldSchema, valid: unknown): { readonly breaks: string; readonly value: unknown }[] {
  const types = schema.type === undefined ? [] : [schema.type].flat();
  const bad: { breaks: string; value: unknown }[] = [
    { breaks: 'type', value: types.includes('number') || types.includes('integer') ? 'x' : 42 },
  ];
  if (types.includes('integer')) bad.push({ breaks: 'type', value: 1.5 });
  if (schema.enum !== undefined) {
    const taken = schema.enum;
    bad.push({ breaks: 'enum', value: [true, 'x', 0].find((value) => !taken.includes(value)) });
  }
  if (schema.minimum !== undefined) bad.push({ breaks: 'minimum', value: schema.minimum - 1 });
  if (schema.maximum !== undefined) bad.push({ breaks: 'maximum', value: schema.maximum + 1 });
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern, 'u');
    const text = TEXTS.find((candidate) => !pattern.test(candidate));
    assert.ok(text !== undefined, `no text breaks ${schema.pattern}`);
    bad.push({ breaks: 'pattern', value: text });
  }
  const text = typeof valid === 'string' ? valid : 'a';
  if (schema.maxLength !== undefined) {
    bad.push({ breaks: 'maxLength', value: text.padEnd(schema.maxLength + 1, 'a') });
  }
  if (schema.minLength !== undefined && schema.minLength > 0) bad.push({ breaks: 'minLength', value: '' });
  const items = Array.isArray(valid) ? (valid as unknown[]) : [];
  if (schema.minItems !== undefined && schema.minItems > 0) bad.push({ breaks: 'minItems', value: [] });
  if (schema.maxItems !== undefined) {
    bad.push({ breaks: 'maxItems', value: Array.from({ length: schema.maxItems + 1 }, () => items[0]) });
  }
  if (schema.items !== undefined) {
    for (const item of badValues(schema.items, items[0]))
      bad.push({ breaks: `items ${item.breaks}`, value: [item.value] });
  }
  return bad;
}

/** The declared example with the most fields: a body the schema takes, every field given. */
function fullExample(declared: ObjectBodyDeclaration<ObjectSchema>): Readonly<Record<string, unknown>> {
  const values = Object.values(declared.examples).map((example) => example.value as Record<string, unknown>);
  return values.reduce((most, value) => (Object.keys(value).length > Object.keys(most).length ? value : most), {});
}

interface Case {
  readonly label: string;
  readonly body: unknown;
  readonly param?: string;
  /** The message, when the case fixes it; else it must be a rule's own sentence. */
  readonly message?: string;
}

/** Every refusal a body's schema makes: a bad value per rule of each field, a field missing, one unknown. */
function casesOf({ declared }: DeclaredBody): Case[] {
  const valid = fullExample(declared);
  const cases: Case[] = [
    { label: 'an array', body: [valid], message: 'The body must be a JSON object.' },
    {
      label: 'an unknown field',
      body: { ...valid, scope: 'all' },
      param: 'scope',
      message: 'Unknown field "scope".',
    },
  ];
  for (const field of declared.schema.required ?? []) {
    const { [field]: _left, ...rest } = valid;
    cases.push({ label: `${field} missing`, body: rest, param: field, message: `${field} is required.` });
  }
  for (const [field, schema] of Object.entries(declared.schema.properties)) {
    assert.ok(field in valid, `${declared.component}: an example gives ${field}`);
    for (const { breaks, value } of badValues(schema, valid[field])) {
      const label = `${field} breaking ${breaks}: ${JSON.stringify(value).slice(0, 40)}`;
      cases.push({ label, body: { ...valid, [field]: value }, param: field });
    }
  }
  return cases;
}

/** What the body's check refuses `body` with; undefined when it takes it. */
function refusalOf(declared: ObjectBodyDeclaration<ObjectSchema>, body: unknown): AppError | undefined {
  try {
    declared.check(body);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error;
  }
}

test('the host API has JSON bodies whose fields have rules, so that this test tries some', () => {
  assert.deepEqual(
    BODIES.map(({ declared }) => declared.component),
    ['CreateKeyRequest', 'LoginLinkRequest', 'CreateWebhookRequest', 'CreateAppRequest'],
  );
});

test("every example a body's declaration shows is taken by its schema", () => {
  for (const { declared } of BODIES) {
    for (const [name, example] of Object.entries(declared.examples)) {
      assert.equal(refusalOf(declared, example.value), undefined, `${declared.component}: ${name}`);
    }
  }
});

test("every rule of every field is the body schema's: 422 invalid_record naming the field, in the rule's own words", () => {
  let tried = 0;
  for (const body of BODIES) {
    for (const { label, body: sent, param, message } of casesOf(body)) {
      const refusal = refusalOf(body.declared, sent);
      const where = `${body.declared.component}, ${label}`;
      assert.ok(refusal !== undefined, `${where}: taken`);
      assert.deepEqual([refusal.code, refusal.status, refusal.param], ['invalid_record', 422, param], where);
      if (message !== undefined) assert.equal(refusal.message, message, where);
      // A rule the schema holds is worded by the domain code that holds it for the command line.
      else assert.doesNotMatch(refusal.message, /breaks its rules/, where);
      tried += 1;
    }
  }
  assert.ok(tried >= 30, `${tried} cases`);
});

let server: HostApiServer | undefined;
before(async () => {
  server = await startHostApiServer({}, startInProcessServer);
});
after(async () => {
  await server?.stop();
});

test('over HTTPS each of those bodies is refused the same, before anything is written', async () => {
  assert.ok(server !== undefined, 'the server started');
  for (const body of BODIES) {
    const path = body.path.replace('{userId}', encodeURIComponent(newUserId('rules')));
    for (const { label, body: sent, param, message } of casesOf(body)) {
      const res = await hostCall(server, { method: body.method, path, json: sent });
      const error = (res.json as { error: { code: string; param?: string; message: string } }).error;
      const where = `${body.method} ${body.path}, ${label}`;
      assert.deepEqual([res.status, error.code, error.param], [422, 'invalid_record', param], where);
      const expected = message ?? refusalOf(body.declared, sent)?.message;
      assert.equal(error.message, expected, where);
    }
  }
  // Nothing of them was made: the apps' list is as empty as the store started.
  assert.deepEqual((await hostCall(server, { path: '/host/v1/apps' })).json, []);
});

/**
 * What the record parser takes though the document's MealRecord refuses it, each for a reason of
 * the parser's, which every door shares (meals-io/meal-record.ts): the document asks less
 * leniency of a client than the service grants, never more.
 */
const TAKEN_BEYOND_THE_SCHEMA = [
  // An empty id is no id, as an empty cell of a CSV import: a PUT's is then the path's.
  'id breaking pattern: ""',
  'id breaking minLength: ""',
  // A GET's read-only modifiedAt is ignored whatever it holds.
  'modifiedAt breaking type: 42',
];

test("the meal record's schema and the record parser agree: what the schema refuses, a PUT refuses naming the field", async () => {
  assert.ok(server !== undefined, 'the server started');
  const record = MEAL_COMPONENTS.MealRecord.schema as unknown as ObjectSchema;
  const valid: Record<string, unknown> = { ...hostRecord(), id: 'm_rules', utcOffset: '+01:00', sourceVersion: 1 };
  const path = mealPath(newUserId('record-rules'), 'm_rules');
  const taken: string[] = [];
  let tried = 0;
  for (const [field, schema] of Object.entries(record.properties)) {
    for (const { breaks, value } of badValues(schema, valid[field])) {
      const res = await hostCall(server, { method: 'PUT', path, json: { ...valid, [field]: value } });
      const label = `${field} breaking ${breaks}: ${JSON.stringify(value).slice(0, 40)}`;
      if (res.status === 200) taken.push(label);
      else assert.deepEqual([res.status, (res.json as { error: { param?: string } }).error.param], [422, field], label);
      tried += 1;
    }
  }
  assert.deepEqual(taken, TAKEN_BEYOND_THE_SCHEMA);
  assert.ok(tried >= 35, `${tried} cases`);
});
