import { parseArgs } from 'node:util';

/** What `npm run soak -- …` was asked for. */
export interface SoakOptions {
  readonly minutes: number;
  /** Seconds between two SIGKILLs (one instance in turn); undefined: no kill. */
  readonly killEverySeconds: number | undefined;
  /** The PostgreSQL server a private database is made on, and the Redis beside it; both or neither. */
  readonly scaleOut: { readonly postgresUrl: string; readonly redisUrl: string } | undefined;
  readonly instances: number;
  /** Followers keeping copies; users, endpoints and app servers are fixed (SOAK_SHAPE). */
  readonly followers: number;
  readonly json: boolean;
}

export const SOAK_USAGE = `usage: npm run soak -- --minutes N [--kill-every S] [--postgres URL --redis URL [--instances K]]
                      [--followers N] [--json]
  --minutes N       the load's length (decimals allowed: 0.5)
  --kill-every S    SIGKILL one instance in turn every S seconds, and start it again on its port
  --postgres URL    a PostgreSQL server: a private database is made on it and dropped at the end
  --redis URL       the Redis beside it: keys under a private prefix, deleted at the end
  --instances K     instances over PostgreSQL + Redis (default 2; 1 on SQLite)
  --followers N     SDK followers keeping copies (default 5)
  --json            the report as JSON on stdout, after the text`;

function positive(value: string | undefined, name: string, fallback: number, integer: boolean): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}, not ${JSON.stringify(value)}`);
  }
  return n;
}

export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      minutes: { type: 'string' },
      'kill-every': { type: 'string' },
      postgres: { type: 'string' },
      redis: { type: 'string' },
      instances: { type: 'string' },
      followers: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new Error(SOAK_USAGE);
  if (values.minutes === undefined) throw new Error(`--minutes is required\n${SOAK_USAGE}`);
  if ((values.postgres === undefined) !== (values.redis === undefined)) {
    throw new Error('--postgres and --redis go together: the scale-out mode needs both');
  }
  const scaleOut =
    values.postgres === undefined || values.redis === undefined
      ? undefined
      : { postgresUrl: values.postgres, redisUrl: values.redis };
  if (scaleOut === undefined && values.instances !== undefined && values.instances !== '1') {
    throw new Error('--instances needs --postgres and --redis: on SQLite the soak runs one instance');
  }
  return {
    minutes: positive(values.minutes, 'minutes', 1, false),
    killEverySeconds:
      values['kill-every'] === undefined ? undefined : positive(values['kill-every'], 'kill-every', 60, false),
    scaleOut,
    instances: scaleOut === undefined ? 1 : positive(values.instances, 'instances', 2, true),
    followers: positive(values.followers, 'followers', 5, true),
    json: values.json,
  };
}
