import type { LimiterLog } from './limiter-log.js';
import type { LimiterObserver } from './limiter-observer.js';

export type LimiterName = 'rate' | 'auth_failures';
export type LimiterBackend = 'redis' | 'memory';

export interface FallbackSwitchOptions {
  readonly limiter: LimiterName;
  /** Answers when the shared store answers (a PING). */
  readonly probe: () => Promise<unknown>;
  readonly log: LimiterLog;
  readonly observer: LimiterObserver;
  /** How long one call may wait for the shared store before the in-process limiter answers. */
  readonly timeoutMs?: number;
  /** How often the store is probed while down. */
  readonly probeEveryMs?: number;
}

export interface FallbackSwitch {
  /** Who decides now. */
  backend(): LimiterBackend;
  /**
   * Runs `shared` while the store answers, else `local`; a call that fails or outlasts the
   * timeout switches to `local` for this call and the next ones, until a probe answers.
   */
  run<T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<{ value: T; backend: LimiterBackend }>;
  /** Switches to the in-process limiter now (e.g. the store did not answer at start). */
  reportUnreachable(err: unknown): void;
  close(): void;
}

// 500 ms for Redis, which answers in well under a millisecond, then the in-process answer:
// a request never waits more than 1 s for the limiter.
const DEFAULT_TIMEOUT_MS = 500;
const DEFAULT_PROBE_EVERY_MS = 1000;

/**
 * The shared store or the in-process fallback, for one limiter
 * (docs/operations.md#scale-out-many-instances-on-postgresql-and-redis): the switch is logged once
 * each way and reported to the observer; while down, no call tries the store: a background probe
 * brings it back by itself.
 */
export function createFallbackSwitch(options: FallbackSwitchOptions): FallbackSwitch {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const probeEveryMs = options.probeEveryMs ?? DEFAULT_PROBE_EVERY_MS;
  const { limiter, log, observer } = options;
  let down = false;
  let closed = false;
  let probing = false;
  let probeTimer: NodeJS.Timeout | undefined;

  function reportUnreachable(err: unknown): void {
    if (down || closed) return;
    down = true;
    log.warn(
      { limiter, err: err instanceof Error ? err.message : String(err) },
      'shared limiter store unreachable: deciding in-process until it answers',
    );
    observer.fallback(limiter);
    // The timer must not keep a stopping process alive.
    probeTimer = setInterval(probe, probeEveryMs).unref();
  }

  function probe(): void {
    if (probing) return;
    probing = true;
    withTimeout(options.probe(), timeoutMs).then(
      () => {
        probing = false;
        if (!down || closed) return;
        down = false;
        clearInterval(probeTimer);
        log.info({ limiter }, 'shared limiter store answers again: deciding there');
        observer.recovered(limiter);
      },
      () => {
        probing = false;
      },
    );
  }

  return {
    backend: () => (down ? 'memory' : 'redis'),
    async run(shared, local) {
      if (!down) {
        try {
          return { value: await withTimeout(shared(), timeoutMs), backend: 'redis' };
        } catch (err) {
          reportUnreachable(err);
        }
      }
      return { value: await local(), backend: 'memory' };
    },
    reportUnreachable,
    close() {
      closed = true;
      clearInterval(probeTimer);
    },
  };
}

/** Rejects when `work` has not settled within `ms`; a late rejection of `work` is ignored. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
