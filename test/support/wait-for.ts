/**
 * Polls until `check` holds (every 10 ms), or fails after `ms`. `what` may be a function, read
 * when it fails, to say what was last seen.
 */
export async function waitFor(
  what: string | (() => string),
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
