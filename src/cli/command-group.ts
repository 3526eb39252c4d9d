import { CliError } from '../errors.js';

/** One subcommand of a group (`keys create`): its usage line and what runs it. */
export interface Subcommand {
  readonly usage: string;
  readonly run: (argv: string[]) => Promise<void>;
}

/**
 * Runs `meal-export GROUP SUBCOMMAND …`. `GROUP --help` lists every subcommand's usage; a
 * missing or unknown one is a usage error (exit 2) that names the ones there are.
 */
export async function runGroup(
  group: string,
  subcommands: Readonly<Record<string, Subcommand>>,
  argv: readonly string[],
): Promise<void> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    const usages = Object.values(subcommands).map((sub) => `  ${sub.usage}`);
    process.stdout.write(
      `usage:\n${usages.join('\n')}\n\n"meal-export ${group} <subcommand> --help" lists a subcommand's options\n`,
    );
    return;
  }
  const subcommand = name !== undefined && Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (subcommand === undefined) {
    const what =
      name === undefined ? `missing ${group} subcommand` : `unknown ${group} subcommand ${JSON.stringify(name)}`;
    const names = Object.keys(subcommands).join(', ');
    throw new CliError(`${what}: expected ${names} (see meal-export ${group} --help)`, { usage: true });
  }
  await subcommand.run(rest);
}
