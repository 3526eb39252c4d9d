import { after, before } from 'node:test';
import { type HostApiServer, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { hostAccountRules } from './host-accounts.suite.js';
import { hostErrorRules } from './host-api-errors.suite.js';
import { hostImportRules } from './host-import.suite.js';
import { hostMealRules } from './host-meals.suite.js';

// Every rule of the host API over real HTTPS on the embedded default: one served SQLite file.
let server: HostApiServer | undefined;

before(async () => {
  server = await startHostApiServer({ extraArgs: ['--public-url', 'https://meals.example.com'] }, startInProcessServer);
});

after(async () => {
  await server?.stop();
});

const open = (): HostApiServer => {
  if (server === undefined) throw new Error('the server did not start');
  return server;
};

hostMealRules('SQLite', open);
hostErrorRules('SQLite', open);
hostImportRules('SQLite', open);
hostAccountRules('SQLite', open);
