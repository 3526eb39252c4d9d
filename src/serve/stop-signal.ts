/** SIGTERM or SIGINT, listened for from the start of `serve` (docs/cli.md#serve). */
export interface StopSignal {
  /** Resolves with the first SIGTERM or SIGINT since listenForStopSignal() was called. */
  readonly received: Promise<NodeJS.Signals>;
  /**
   * The signal, if one has been delivered by now: a start-up asks before it announces
   * readiness. A delivered signal reaches its handler only when the event loop next polls,
   * and a start-up can run to its end on promises alone, without a poll; so this resolves
   * after one (the second setImmediate runs in a later turn of the loop than the first,
   * after that turn's poll).
   */
  readonly receivedByNow: () => Promise<NodeJS.Signals | undefined>;
  /** Stops listening (a start-up that failed): the signals take Node's default action again. */
  readonly stopListening: () => void;
}

/**
 * Listens for SIGTERM and SIGINT (either one drains and exits 0) from now on. Called before
 * anything announces readiness: an orchestrator may signal the moment it reads the `listening
 * on` line, and a signal with no handler yet takes Node's default action, an immediate exit by
 * that signal with nothing drained. The handlers go after the first signal: a
 * second one takes that default action and ends the process at once (a second Ctrl-C).
 * Node's signal handlers hold no reference on the event loop: they never keep alive a process
 * whose start-up failed.
 */
export function listenForStopSignal(): StopSignal {
  let arrived: NodeJS.Signals | undefined;
  let resolveReceived: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    resolveReceived = resolve;
  });
  const stopListening = () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    stopListening();
    arrived = signal;
    resolveReceived(signal);
  }
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const receivedByNow = () =>
    new Promise<NodeJS.Signals | undefined>((resolve) => setImmediate(() => setImmediate(() => resolve(arrived))));
  return { received, receivedByNow, stopListening };
}
