import { AppError, CliError } from '../errors.js';

const USAGE = `usage: meal-export <command> [options]

commands:
  serve                         run the HTTPS API
  keys create|list|revoke       manage API keys
  webhooks create|list|test|…  endpoints called when meals change (also delete, enable, rotate-secret, attempts)
  users login-link              a one-time link that signs a user in to the app page
  meals import|delete|export    record, delete and export meals
  seed                          write deterministic synthetic meals
  pull                          keep a CSV or JSONL copy of your meals in sync with the API

every command takes --db PATH|postgres://... and --json; "meal-export <command> --help" for more`;

type Command = (argv: string[]) => Promise<void>;

// Each command is loaded only when called: `keys list` need not load Fastify and TLS.
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => (await import('./serve.js')).runServe,
  keys: async () => (await import('./keys.js')).runKeys,
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
      process.stdout.write(`${USAGE}\n`);
      if (name === undefined) process.exitCode = 2;
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
