import { ENV } from '../config.js';
import { AppError, CliError } from '../errors.js';
import { PACKAGE_VERSION } from '../version.js';

/** Every command and subcommand, as `meal-export --help` lists them (docs/cli.md). */
const COMMAND_LIST: readonly (readonly [string, string])[] = [
  ['serve', 'run the HTTPS API'],
  ['keys create|list|revoke', 'manage API keys'],
  ['service-tokens create|list|revoke', "manage the host API's service tokens"],
  ['apps create|list|delete|rotate-secret', 'third-party apps that ask people for a key (Connect)'],
  ['webhooks create|list|delete|enable', 'endpoints called when meals change'],
  ['webhooks rotate-secret|test|attempts', "a webhook's secret, a test call, its last calls"],
  ['users login-link|erase', 'a sign-in link to the app page; erase a user whose account is deleted'],
  ['meals import|delete|prune|export', 'record, delete, prune tombstones of and export meals'],
  ['seed', 'write deterministic synthetic meals'],
  ['pull', 'keep a CSV or JSONL copy of your meals in sync with the API'],
];

/** What each environment variable stands for (config.ts names them; a flag, when given, wins). */
const ENV_HELP: Readonly<Partial<Record<keyof typeof ENV, string>>> = {
  databaseUrl: '--db',
  directDatabaseUrl: '--direct-db (serve)',
  redisUrl: '--redis (serve)',
  tlsCert: '--tls-cert (serve)',
  tlsKey: '--tls-key (serve)',
  logLevel: '--log-level (serve)',
  port: '--port (serve)',
  adminPort: '--admin-port (serve)',
  appPort: '--app-port (serve)',
  hostApiPort: '--host-api-port (serve)',
  publicUrl: '--public-url (serve, users login-link)',
  appHomeUrl: '--app-home-url (serve)',
  apiKey: 'the API key of pull',
};

function usage(): string {
  const width = Math.max(...COMMAND_LIST.map(([name]) => name.length)) + 2;
  const commands = COMMAND_LIST.map(([name, what]) => `  ${name.padEnd(width)}${what}`);
  const variables = Object.entries(ENV_HELP).map(
    ([key, what]) => `  ${ENV[key as keyof typeof ENV].padEnd(width)}${what}`,
  );
  return [
    'usage: meal-export <command> [options]',
    '',
    'commands:',
    ...commands,
    '',
    'environment (read when the flag is absent):',
    ...variables,
    '',
    'every command takes --db PATH|postgres://... and --json; "meal-export <command> --help" lists its options;',
    '"meal-export --version" prints the version',
  ].join('\n');
}

type Command = (argv: string[]) => Promise<void>;

// Each command is loaded only when called: `keys list` need not load Fastify and TLS.
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => (await import('./serve.js')).runServe,
  keys: async () => (await import('./keys.js')).runKeys,
  'service-tokens': async () => (await import('./service-tokens.js')).runServiceTokens,
  apps: async () => (await import('./apps.js')).runApps,
  webhooks: async () => (await import('./webhooks.js')).runWebhooks,
  users: async () => (await import('./users.js')).runUsers,
  meals: async () => (await import('./meals.js')).runMeals,
  seed: async () => (await import('./seed.js')).runSeed,
  pull: async () => (await import('./pull.js')).runPull,
};

/** Runs the command line; a failure is one line on stderr and a non-zero exit, never a stack. */
export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      process.stdout.write(`${usage()}\n`);
      if (name === undefined) process.exitCode = 2;
      return;
    }
    if (name === '--version' || name === '-v' || name === 'version') {
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return;
    }
    const load = COMMANDS[name];
    if (load === undefined) {
      throw new CliError(`unknown command ${JSON.stringify(name)} (meal-export --help lists them)`, { usage: true });
    }
    await (
      await load()
    )(rest);
  } catch (error) {
    process.exitCode = reportFailure(error);
  }
}

/** The contract wants exactly one line on stderr for a failure. */
function printFailure(message: string): void {
  process.stderr.write(`meal-export: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
}

function reportFailure(error: unknown): number {
  if (error instanceof CliError) {
    printFailure(error.message);
    return error.exitCode;
  }
  if (error instanceof AppError) {
    printFailure(error.message);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  printFailure(`unexpected failure: ${message}`);
  return 1;
}
