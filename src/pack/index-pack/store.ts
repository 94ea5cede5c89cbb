// The pack's bytes, held once in shared memory while it is indexed: the parser appends what
// arrives, the delta resolvers in every thread read entries from it by offset without copying or
// re-reading the file. A growable SharedArrayBuffer commits memory only as it fills, so a stream of
// unknown length needs no up-front size; its ceiling (4 GiB) is the largest Uint8Array Node has.
import { GitError } from '../../core/errors.js';

export const MAX_PACK_BYTES = 2 ** 32 - 1;

/** ES2024's growable SharedArrayBuffer, which Node 20 has but the ES2022 typings do not. */
interface Growable {
  grow(length: number): void;
}
const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => SharedArrayBuffer;

export class PackStore {
  readonly buffer: SharedArrayBuffer;
  /** View over the bytes received so far; replaced (not resized) when the buffer grows. */
  bytes: Uint8Array;
  length = 0;

  constructor(initial = 1 << 20, buffer?: SharedArrayBuffer, length = 0) {
    if (buffer) {
      this.buffer = buffer;
      this.length = length;
    } else {
      this.buffer = new GrowableSharedArrayBuffer(Math.min(initial, MAX_PACK_BYTES), { maxByteLength: MAX_PACK_BYTES });
    }
    this.bytes = new Uint8Array(this.buffer, 0, this.buffer.byteLength);
  }

  /** Room for `n` more bytes at the end; returns the view to write them into at `length`. */
  reserve(n: number): Uint8Array {
    const need = this.length + n;
    if (need > this.buffer.byteLength) {
      if (need > MAX_PACK_BYTES) {
        throw new GitError('pack', 'too-large', `pack is larger than ${MAX_PACK_BYTES} bytes, which tsgit cannot index in memory`);
      }
      const grown = Math.min(MAX_PACK_BYTES, Math.max(need, Math.floor(this.buffer.byteLength * 1.5)));
      (this.buffer as unknown as Growable).grow(grown);
      this.bytes = new Uint8Array(this.buffer, 0, this.buffer.byteLength);
    }
    return this.bytes;
  }

  append(chunk: Uint8Array): void {
    this.reserve(chunk.length).set(chunk, this.length);
    this.length += chunk.length;
  }
}
