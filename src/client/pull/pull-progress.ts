import { createStatusLine, type ProgressStream } from '../../status-line.js';
import type { WaitEvent } from '../types.js';

export type { ProgressStream };

export interface PullProgress {
  /** After each page is applied. */
  page(pages: number, meals: number): void;
  /** With --follow, once the copy is up to date: the next poll is held until a change. */
  following(): void;
  /** Before a wait: the limiter, a Retry-After, a retry. */
  waiting(reason: WaitEvent['reason'], ms: number): void;
  /**
   * A request failed and is retried: a notice naming where and why (`cannot connect to
   * https://127.0.0.1:9999: connection refused; retrying in 2 s (1 of 6)`), at once, on a
   * terminal and in a log alike; on a terminal the countdown follows.
   */
  retrying(error: Error, ms: number, attempt: number | undefined, retries: number | undefined): void;
  /** A line that stays (a resync, a failed poll that will be tried again): printed even off a terminal. */
  notice(text: string): void;
  /** Clears the progress line. */
  done(): void;
}

const WHY: Readonly<Record<WaitEvent['reason'], string>> = {
  interval: 'for the rate limit',
  rate_limited: 'as the server asked (429)',
  retry: 'before trying again',
};

/** `0.4 s` under a second (full jitter draws short waits), whole seconds above. */
export function formatDelay(ms: number): string {
  return ms < 1000 ? `${(Math.max(0, ms) / 1000).toFixed(1)} s` : `${Math.ceil(ms / 1000)} s`;
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/**
 * One self-rewriting line on a terminal (pages, meals so far, and a countdown during waits);
 * nothing at all when the stream is not a terminal, except notices (retries among them: a log
 * must say why a pull is slow, or failing, as much as a terminal does).
 */
export function createPullProgress(stream: ProgressStream): PullProgress {
  const line = createStatusLine(stream);
  const tty = line.tty;
  // The pages and meals so far; status adds where the pull stands.
  let counts = 'connecting';
  let status = counts;
  let timer: NodeJS.Timeout | undefined;

  const render = (text: string) => line.show(text);
  const stopCountdown = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };

  const progress: PullProgress = {
    page(pages, meals) {
      if (!tty) return;
      stopCountdown();
      counts = `${plural(pages, 'page')}, ${plural(meals, 'meal')}`;
      status = counts;
      render(status);
    },
    following() {
      if (!tty) return;
      stopCountdown();
      status = `${counts} · up to date, following changes`;
      render(status);
    },
    waiting(reason, ms) {
      if (!tty || ms < 250) return;
      stopCountdown();
      const until = Date.now() + ms;
      const tick = () => {
        const seconds = Math.ceil((until - Date.now()) / 1000);
        if (seconds > 0) render(`${counts} · waiting ${seconds} s ${WHY[reason]}`);
        else {
          // The wait is over: back to where things stand (a held poll shows no countdown).
          stopCountdown();
          render(status);
        }
      };
      tick();
      timer = setInterval(tick, 1000);
      timer.unref();
    },
    retrying(error, ms, attempt, retries) {
      const count = attempt === undefined ? '' : ` (${attempt}${retries === undefined ? '' : ` of ${retries}`})`;
      progress.notice(`${error.message}; retrying in ${formatDelay(ms)}${count}`);
      progress.waiting('retry', ms);
    },
    notice(text) {
      stopCountdown();
      line.print(`meal-export: ${text}`, status);
    },
    done() {
      stopCountdown();
      line.clear();
    },
  };
  return progress;
}
