// One pack entry's zlib stream inflated in pieces, the pack read a chunk at a time: for a whole
// object too big to hold (checkout writes it as it comes, receive-pack writes it loose, index-pack
// compares it with the repository's copy).
import { CorruptError } from '../core/errors.js';
import type { Inflater } from '../core/zlib.js';

/**
 * Objects above this size are never held whole where they can be streamed: index-pack inflates
 * and hashes them in pieces, checkout writes them as they are inflated, receive-pack writes them
 * loose from the pack in pieces, and the pack writer deflates them a step at a time. (git streams
 * above core.bigFileThreshold, 512 MiB; here holding a blob twice over was most of a clone's
 * memory well below that.)
 */
export const BIG_OBJECT = 8 << 20;

/** What the entry is read from: a pack file (PackFile's readInto). */
export interface EntrySource {
  readonly path: string;
  readInto(buf: Uint8Array, pos: number, length: number, offset: number): void;
}

/** What inflateEntry reads the pack into and inflates into, made on first use (per thread). */
const PIECE = 1 << 20;
let chunk: Buffer | null = null;
let piece: Buffer | null = null;

/**
 * Inflates the stream of `size` bytes at `dataOffset` (the pack's data ending at `dataEnd`),
 * reading it a MiB at a time and handing the output to `sink` in pieces of at most a MiB (valid
 * until the sink returns). Throws a CorruptError naming the entry at `entryOffset` when the stream
 * is bad, runs past the pack's data, or inflates to another size. Not re-entrant: a sink must not
 * call it again.
 */
export function inflateEntry(file: EntrySource, entryOffset: number, dataOffset: number, dataEnd: number, size: number,
  inflater: Inflater, sink: (piece: Uint8Array) => void): void {
  const where = (): string => `${file.path}: entry at offset ${entryOffset}`;
  const input = chunk ??= Buffer.allocUnsafe(PIECE), out = piece ??= Buffer.allocUnsafe(PIECE);
  inflater.begin();
  let at = dataOffset, produced = 0;
  for (;;) {
    if (at >= dataEnd) throw new CorruptError('odb', `${where()}: zlib stream runs past the end of the pack`);
    const len = Math.min(input.length, dataEnd - at);
    file.readInto(input, 0, len, at);
    at += inflater.feed(input, 0, len, size, produced, out, (part) => {
      produced += part.length;
      sink(part);
    }, 'odb', where);
    if (inflater.ended) return;
  }
}
