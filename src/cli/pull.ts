import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { createMealExportClient } from '../client/client.js';
import {
  MealExportAuthError,
  MealExportBadRequestError,
  MealExportError,
  MealExportHttpError,
  MealExportNetworkError,
  MealExportRateLimitError,
} from '../client/errors.js';
import { MAX_WAIT_SECONDS } from '../domain/page-bounds.js';
import { formatMealsDigest } from '../domain/meals-digest.js';
import type { SyncStep } from '../client/types.js';
import { type LocalCopy, LocalCopyError, openLocalCopy } from '../client/pull/local-copy.js';
import { createPullProgress } from '../client/pull/pull-progress.js';
import { resolveSetting } from '../config.js';
import { CliError } from '../errors.js';
import { formatFromExtension, type MealFileFormat } from '../meals-io/file-format.js';
import { expectPositionals, type Flags, parseCommandArgs, parseIntegerFlag, requireFlag } from './command-args.js';
import { printResult } from './output.js';

const USAGE =
  'meal-export pull --url BASE_URL --state FILE --out FILE.csv|FILE.jsonl [--ca FILE] [--follow SECONDS] [--key-file FILE] [--limit N] [--json]';

const OPTIONS = {
  url: { type: 'string', value: 'BASE_URL', required: true, help: "the service's https:// address" },
  state: { type: 'string', value: 'FILE', required: true, help: 'where the position in the feed is kept' },
  out: { type: 'string', value: 'FILE.csv|FILE.jsonl', required: true, help: 'the copy of the meals' },
  ca: { type: 'string', value: 'FILE', shown: 'the system CAs', help: "a CA certificate (PEM) for the server's" },
  follow: { type: 'string', value: 'SECONDS', shown: 'none: stop at the end', help: 'keep polling, held up to 120 s' },
  'key-file': {
    type: 'string',
    value: 'FILE',
    shown: 'none',
    env: 'apiKey',
    help: 'a file holding the API key (the variable holds the key itself)',
  },
  limit: { type: 'string', value: 'N', shown: '5000', help: 'meals per page, 1 to 5000' },
} as const satisfies Flags;

interface PullSettings {
  readonly url: string;
  readonly statePath: string;
  readonly outPath: string;
  readonly format: MealFileFormat;
  /** --follow: how long the server may hold each poll at the end of the feed (`wait`, seconds). */
  readonly followWait: number | undefined;
  /** --follow as given, when it asked for more than the server's longest wait. */
  readonly followCapped: number | undefined;
  readonly limit: number;
}

interface Totals {
  pages: number;
  upserted: number;
  deleted: number;
  /** The last caught-up page's Meals-Digest matched the copy's. */
  verified: boolean;
}

/** The key comes from the environment or a file, never from argv, where every user of the machine sees it. */
function refuseKeyInArgv(argv: readonly string[]): void {
  if (argv.some((arg) => /^--(key|api-key|apikey)(=|$)/.test(arg))) {
    throw new CliError(
      '--key is refused: a key on the command line shows in ps and in shell history; set MEAL_EXPORT_API_KEY or pass --key-file FILE',
      { usage: true },
    );
  }
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

async function resolveApiKey(keyFile: string | undefined): Promise<string> {
  const fromFile = keyFile === undefined ? undefined : (await readText(keyFile, '--key-file')).trim();
  const key = resolveSetting(fromFile === '' ? undefined : fromFile, 'apiKey');
  if (key === undefined) {
    throw new CliError(`no API key: set MEAL_EXPORT_API_KEY or pass --key-file FILE (usage: ${USAGE})`, {
      usage: true,
    });
  }
  return key;
}

function parseSettings(
  argv: string[],
): PullSettings & { json: boolean; ca: string | undefined; keyFile: string | undefined } {
  refuseKeyInArgv(argv);
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, USAGE);
  expectPositionals(positionals, 0, USAGE);
  const url = requireFlag(values.url, 'url', USAGE);
  if (!URL.canParse(url) || !['https:', 'http:'].includes(new URL(url).protocol)) {
    throw new CliError(`--url must be the service's https:// address, got ${JSON.stringify(url)}`, { usage: true });
  }
  const outPath = requireFlag(values.out, 'out', USAGE);
  const format = formatFromExtension(outPath);
  if (format === undefined) throw new CliError(`--out must end in .csv or .jsonl, got ${outPath}`, { usage: true });
  // Up to 86 400, as when --follow was a polling period: a longer one is held for the longest wait.
  const follow = values.follow === undefined ? undefined : parseIntegerFlag(values.follow, 'follow', 0, 1, 86_400);
  return {
    url,
    statePath: requireFlag(values.state, 'state', USAGE),
    outPath,
    format,
    followWait: follow === undefined ? undefined : Math.min(follow, MAX_WAIT_SECONDS),
    followCapped: follow !== undefined && follow > MAX_WAIT_SECONDS ? follow : undefined,
    limit: parseIntegerFlag(values.limit, 'limit', 5000, 1, 5000),
    json: values.json,
    ca: values.ca,
    keyFile: values['key-file'],
  };
}

/** A failure as one line a person can act on (main.ts prints CliError messages as they are). */
function explain(error: unknown, settings: PullSettings): unknown {
  if (error instanceof LocalCopyError) return new CliError(error.message, { cause: error });
  const { syscall, path, code } = error as NodeJS.ErrnoException;
  // File-system failures (a missing folder, no permission, a full disk) are the user's to fix.
  if (syscall !== undefined && path !== undefined) {
    return new CliError(`cannot ${syscall} ${path}: ${code ?? 'failed'}`, { cause: error });
  }
  if (!(error instanceof MealExportError)) return error;
  if (error instanceof MealExportAuthError) {
    // One message for every refused key (docs/errors.md): the server cannot say which of these it was.
    return new CliError(
      `the server refused the API key (${error.code}): the key no longer works: it was revoked or has expired, or the person erased their account or disconnected the app (or it was never this server's); ask for a new key`,
      { cause: error },
    );
  }
  if (error instanceof MealExportBadRequestError && error.param === 'cursor') {
    return new CliError(
      `the server refused the position saved in ${settings.statePath} (${error.code}): it is another server's or another user's; delete it and ${settings.outPath} to pull everything again`,
      { cause: error },
    );
  }
  if (error instanceof MealExportRateLimitError) {
    const minutes = Math.ceil(error.retryAfterMs / 60_000);
    return new CliError(`the key's daily quota is used up (rate_limited): try again in ${minutes} min`, {
      cause: error,
    });
  }
  const detail = error instanceof MealExportHttpError && error.serverMessage ? ` (${error.serverMessage})` : '';
  return new CliError(`${error.message}${detail}`, { cause: error });
}

/**
 * Worth another try with --follow: the server or the network may be back by then. Not a
 * certificate that is not trusted or a wrong scheme; not a host name that does not resolve,
 * unless it did before (`pulledBefore`): a follow running for days outlives a DNS hiccup.
 */
function isTransient(error: unknown, pulledBefore: boolean): boolean {
  if (error instanceof MealExportRateLimitError) return true;
  if (error instanceof MealExportHttpError) return error.status >= 500;
  if (!(error instanceof MealExportNetworkError)) return false;
  return error.retryable || (pulledBefore && error.problem === 'host_not_found');
}

/**
 * Why the copy, having applied a caught-up step, is not the server's (its Meals-Digest differs:
 * docs/api.md#verifying-a-copy-meals-digest); undefined when it is, or when there is nothing to check.
 */
function copyDiffers(copy: LocalCopy, step: SyncStep, outPath: string): string | undefined {
  if (step.digest === null || copy.matches(step) !== false) return undefined;
  const held = formatMealsDigest(copy.digest);
  return `${outPath} does not match the server's meals (it holds ${held}, the server ${formatMealsDigest(step.digest)})`;
}

/**
 * After a failure the SDK gave up on (its own retries, up to 30 s apart, are spent), --follow
 * starts again from the saved position this much later; a spent daily quota, when it resets.
 */
const FOLLOW_RETRY_MS = 30_000;

/**
 * `meal-export pull`: pages to the end with includeDeleted=true and applies each page to --out,
 * then saves the position in --state, in that order, both atomically: a crash between the two
 * re-applies one page, which changes nothing
 * (docs/sdk.md#pull-your-meals-in-a-csv-file-kept-current). With --follow it goes on with the SDK's
 * follow: each poll at the end of the feed is held by the server until a change commits (long
 * poll), so a change is written within about a second. At every catch-up the copy's digest is
 * checked against the page's Meals-Digest: a copy that differs (edited by hand, say) is
 * rebuilt from the beginning, once; one that still differs then is an error, not a loop.
 */
export async function runPull(argv: string[]): Promise<void> {
  const settings = parseSettings(argv);
  const apiKey = await resolveApiKey(settings.keyFile);
  const ca = settings.ca === undefined ? undefined : await readText(settings.ca, '--ca');
  const progress = createPullProgress(process.stderr);
  const files = {
    url: settings.url,
    statePath: settings.statePath,
    outPath: settings.outPath,
    format: settings.format,
  };
  const copy = await openLocalCopy(files, (text) => progress.notice(text)).catch((error: unknown) => {
    throw explain(error, settings);
  });
  const client = createMealExportClient({
    baseUrl: settings.url,
    apiKey,
    ...(ca === undefined ? {} : { ca }),
    onWait: (event) => {
      if (event.reason === 'retry' && event.error !== undefined) {
        progress.retrying(event.error, event.ms, event.attempt, event.retries);
      } else progress.waiting(event.reason, event.ms);
    },
  });

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const totals: Totals = { pages: 0, upserted: 0, deleted: 0, verified: false };
  let rebuilding = false;
  const { followWait } = settings;
  if (settings.followCapped !== undefined) {
    progress.notice(
      `--follow ${settings.followCapped}: each poll is held up to ${MAX_WAIT_SECONDS} s, the server's longest wait`,
    );
  }
  try {
    for (;;) {
      try {
        const steps = client.sync({
          ...(copy.position === undefined ? {} : { from: copy.position }),
          limit: settings.limit,
          signal: stop.signal,
          onResync: () =>
            progress.notice(`the server asked for a full resync (410 resync_required): rebuilding ${settings.outPath}`),
          ...(followWait === undefined ? {} : { follow: true, wait: followWait }),
        });
        let startOver = false;
        for await (const step of steps) {
          const applied = await copy.applyStep(step);
          totals.pages += 1;
          totals.upserted += applied.upserted;
          totals.deleted += applied.deleted;
          progress.page(totals.pages, copy.size);
          const differs = copyDiffers(copy, step, settings.outPath);
          if (step.digest !== null) totals.verified = differs === undefined;
          if (differs !== undefined) {
            if (rebuilding) throw new CliError(`${differs}, even rebuilt from the beginning`);
            progress.notice(`${differs}: rebuilding it from the beginning`);
            copy.startOver();
            rebuilding = startOver = true;
            break;
          }
          if (step.digest !== null) rebuilding = false;
          if (followWait !== undefined && !step.page.hasMore) progress.following();
        }
        if (startOver) continue;
        // The end of the feed; a follow ends only by a signal or an error.
        break;
      } catch (error) {
        if (stop.signal.aborted && (error as Error | undefined)?.name === 'AbortError') break;
        if (followWait === undefined || !isTransient(error, totals.pages > 0)) throw explain(error, settings);
        const ms = error instanceof MealExportRateLimitError ? error.retryAfterMs : FOLLOW_RETRY_MS;
        progress.notice(`${(explain(error, settings) as Error).message}; trying again in ${Math.ceil(ms / 1000)} s`);
        progress.waiting('retry', ms);
        const slept = await delay(ms, true, { signal: stop.signal }).catch(() => false);
        if (!slept) break;
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    client.close();
    progress.done();
  }

  const { pages, upserted, deleted, verified } = totals;
  const summary = { pages, upserted, deleted, total: copy.size, verified };
  const text = `pulled ${pages} page${pages === 1 ? '' : 's'}: ${upserted} upserted, ${deleted} deleted; ${settings.outPath} holds ${summary.total} meal${summary.total === 1 ? '' : 's'}${verified ? ', verified' : ', not verified'}`;
  printResult(settings.json, summary, text);
  // Interrupted before the end of the feed: the state is saved, the next run resumes.
  if (stop.signal.aborted && followWait === undefined) process.exitCode = 130;
}
