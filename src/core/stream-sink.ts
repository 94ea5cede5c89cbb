// A service's output (upload-pack's pack, receive-pack's report) to a stream with back-pressure:
// stdout for the stdio commands, or the pipe of a service served in the client's own process. A
// write that fills the stream returns one wait for 'drain', shared by every write made while it
// is full. The pack writer hands over a large object's chunks one after another before it waits;
// a wait of its own for each added a 'drain' and an 'abort' listener per chunk (Node's
// MaxListenersExceededWarning on a clone with a multi-megabyte blob).
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** The sink; `signal` aborted (the reader went away) fails its waits. */
export function streamSink(stream: Writable, signal: AbortSignal): (chunk: Uint8Array) => void | Promise<void> {
  let pending: Promise<void> | null = null;
  const drained = (): Promise<void> => {
    if (signal.aborted) return Promise.reject(new Error('output closed'));
    return pending ??= once(stream, 'drain', { signal })
      .then(() => undefined)
      .finally(() => { pending = null; });
  };
  return (chunk) => (stream.write(chunk) ? undefined : drained());
}
