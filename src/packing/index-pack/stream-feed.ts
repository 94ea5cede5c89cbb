// The first pass over a pack that arrives as a stream. The parser says how far the window must
// reach before it is worth stepping again: for an entry cut off mid-stream it asks for about twice
// what it holds, so that a large entry is not inflated again from its start for every piece that
// arrives. But a stream need not end where the pack does: a push client sends its pack and then
// waits, connection open, for the report, so an offset past the pack's end never comes, and both
// sides would wait for good. So when the sender goes quiet short of that offset, the parser steps
// on what has come. The quiet it waits for doubles with each such step that finds the entry still
// cut off (a slow link is not a reason to inflate a large entry again at every pause), up to a
// second, and starts again small once an entry is parsed.
import type { PackParser } from './parse.js';
import type { PackWindow } from './window.js';

const QUIET_MIN_MS = 20;
const QUIET_MAX_MS = 1000;

const QUIET = Symbol('quiet');

/**
 * Appends `input` to `window` and steps `parser` until the pack is parsed or the input ends.
 * `onChunk` runs after each append (limits), `onStep` after each step (progress). Each chunk is
 * copied into the window before the next is asked for, so an input may hand out one buffer again
 * and again (the CLI's stdin does).
 */
export async function feedStream(input: AsyncIterable<Uint8Array>, window: PackWindow, parser: PackParser,
  onChunk: () => void, onStep: () => void): Promise<void> {
  const it = input[Symbol.asyncIterator]();
  let want = 1, quiet = QUIET_MIN_MS;
  // Steps the parser on what has come and reports it. An entry parsed starts the quiet time small
  // again; a step on quiet that parsed none doubles it.
  const step = (onQuiet: boolean) => {
    const parsed = parser.parsed;
    want = parser.step(false);
    onStep();
    if (parser.parsed > parsed) quiet = QUIET_MIN_MS;
    else if (onQuiet) quiet = Math.min(quiet * 2, QUIET_MAX_MS);
  };
  for (;;) {
    const next = it.next();
    let r: IteratorResult<Uint8Array> | typeof QUIET = window.end > 0 && window.end < want ? await quietOr(next, quiet) : await next;
    if (r === QUIET) {
      // Should this step end the pack (or fail), what the pending read brings is not ours (git's
      // index-pack reads no further either), nor is its failure: a sender that hangs up badly after
      // its report. Awaited below, it still throws as before.
      next.catch(() => undefined);
      step(true);
      if (want === 0) return;
      r = await next;
    }
    if (r.done) return;
    window.append(r.value, parser.keep);
    onChunk();
    if (window.end >= want) {
      step(false);
      if (want === 0) {
        await it.return?.();
        return;
      }
    }
  }
}

/** The next chunk, or QUIET if none comes within `ms`. */
function quietOr<T>(next: Promise<T>, ms: number): Promise<T | typeof QUIET> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<typeof QUIET>((resolve) => { timer = setTimeout(resolve, ms, QUIET); });
  return Promise.race([next, quiet]).finally(() => clearTimeout(timer));
}
