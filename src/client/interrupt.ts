// Signals that must stop a clone or fetch cleanly (git's sigchain_push_common: INT, TERM, HUP).
// While a handler is installed, the signal no longer kills the process; the caller aborts its
// work, cleans up, and exits with 128 + the signal number.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Calls `handler` on the first of these signals; returns a function that uninstalls it. */
export function onInterrupt(handler: (signal: NodeJS.Signals) => void): () => void {
  let fired = false;
  const listener = (signal: NodeJS.Signals) => {
    if (fired) return;
    fired = true;
    handler(signal);
  };
  for (const s of SIGNALS) process.on(s, listener);
  return () => {
    for (const s of SIGNALS) process.off(s, listener);
  };
}
