// A client's bytes as a service reads them: cut off when the client is idle too long (--timeout)
// or sends more than the service takes (upload-pack's request buffer), whichever transport they
// come over.
import { GitError } from '../core/errors.js';

/** Passes `input` through; fails after `idleMs` without a chunk (0: never) or past `maxBytes`. */
export async function* limitInput(input: AsyncIterable<Uint8Array>, source: string, idleMs: number,
  maxBytes = Infinity): AsyncGenerator<Uint8Array> {
  const it = input[Symbol.asyncIterator]();
  let total = 0;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const next = idleMs > 0
        ? Promise.race([it.next(), new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new GitError('server', 'timeout', `${source}: no data from the client for ${idleMs / 1000} seconds`)), idleMs);
        })])
        : it.next();
      let r: IteratorResult<Uint8Array>;
      try {
        r = await next;
      } finally {
        clearTimeout(timer);
      }
      if (r.done) return;
      total += r.value.length;
      if (total > maxBytes) throw new GitError('server', 'limit-exceeded', `${source}: request larger than ${maxBytes} bytes`);
      yield r.value;
    }
  } finally {
    // Not awaited: a source still busy with the read that timed out would hold the error back.
    void it.return?.();
  }
}
