// A service's output (upload-pack's pack, receive-pack's report) to stdout with back-pressure:
// a write that fills the pipe returns one wait for 'drain', shared by every write made while the
// pipe is full. The pack writer hands over a large object's chunks one after another before it
// waits; a wait of its own for each added a 'drain' and an 'abort' listener per chunk (Node's
// MaxListenersExceededWarning on a clone with a multi-megabyte blob).
import { once } from 'node:events';

/** The sink; `signal` aborted (the reader went away) fails its waits. */
export function stdoutSink(signal: AbortSignal): (chunk: Uint8Array) => void | Promise<void> {
  let pending: Promise<void> | null = null;
  const drained = (): Promise<void> => {
    if (signal.aborted) return Promise.reject(new Error('stdout closed'));
    return pending ??= once(process.stdout, 'drain', { signal })
      .then(() => undefined)
      .finally(() => { pending = null; });
  };
  return (chunk) => (process.stdout.write(chunk) ? undefined : drained());
}
