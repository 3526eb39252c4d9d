import type { Instance } from './instance.js';

/** One SIGKILL and the restart after it. */
export interface KillRecord {
  readonly instance: number;
  readonly pid: number | undefined;
  /** Seconds since the load began. */
  readonly atS: number;
  /** The SIGKILL's wall-clock time (ms), and when the instance listened again. */
  readonly killedAtMs: number;
  readonly backAtMs: number;
  /** From the SIGKILL to the new process's `listening on`, in ms. */
  readonly downMs: number;
  readonly restartError?: string;
}

export interface Killer {
  readonly kills: KillRecord[];
  /** True while an instance is down, and for a while after it is back (retries of cut calls). */
  disturbed(): boolean;
  stop(): Promise<void>;
}

/** After a restart, cut calls are still being retried by the SDK's backoff (up to 30 s apart). */
const SETTLE_MS = 35_000;

/**
 * Every `everyS` seconds, one instance in turn is killed with SIGKILL and started again at once,
 * on the same ports and store. Kills fall at everyS, 2·everyS … strictly before `untilS`.
 */
export function startKiller(instances: readonly Instance[], everyS: number | undefined, untilS: number): Killer {
  const kills: KillRecord[] = [];
  const began = Date.now();
  let down = 0;
  let settledAt = 0;
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  let current: Promise<void> = Promise.resolve();

  async function killOne(n: number): Promise<void> {
    const instance = instances[n % instances.length];
    if (instance === undefined || stopped) return;
    down += 1;
    const pid = instance.pid();
    const killedAt = Date.now();
    let restartError: string | undefined;
    try {
      await instance.kill();
      await instance.start();
    } catch (error) {
      restartError = error instanceof Error ? error.message : String(error);
    } finally {
      down -= 1;
      settledAt = Date.now() + SETTLE_MS;
    }
    kills.push({
      instance: instance.index,
      pid,
      atS: Math.round((killedAt - began) / 100) / 10,
      killedAtMs: killedAt,
      backAtMs: Date.now(),
      downMs: Date.now() - killedAt,
      ...(restartError === undefined ? {} : { restartError }),
    });
  }

  if (everyS !== undefined) {
    for (let n = 1; n * everyS < untilS; n += 1) {
      timers.push(
        setTimeout(
          () => {
            current = current.then(() => killOne(n - 1));
          },
          n * everyS * 1000,
        ),
      );
    }
  }
  return {
    kills,
    disturbed: () => down > 0 || Date.now() < settledAt,
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await current;
    },
  };
}
