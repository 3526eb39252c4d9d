/**
 * Resolves with the first SIGTERM or SIGINT (CONTRACT.md section 7: either one drains and exits
 * 0). The handlers stay installed until then, so the default (an immediate exit) never applies.
 */
export function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
