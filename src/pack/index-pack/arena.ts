// Inflated delta data, kept from the first pass for the second: finding where a delta's zlib
// stream ends means inflating it anyway, and keeping the result (deltas are small: typically a
// few hundred bytes) spares the resolvers a second inflation of every delta, the largest single
// cost of the second pass. The arena is a growable SharedArrayBuffer that every thread reads.
// Past its limit, deltas are simply not kept and are inflated again from the pack file.
export const ARENA_MAX = 2 ** 32 - 1;

/** ES2024's growable SharedArrayBuffer, which Node 20 has but the ES2022 typings do not. */
interface Growable {
  grow(length: number): void;
}
const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as
  new (length: number, options: { maxByteLength: number }) => SharedArrayBuffer;

export class DeltaArena {
  readonly buffer: SharedArrayBuffer;
  /** View over the whole buffer; replaced when the buffer grows. */
  bytes: Uint8Array;
  length = 0;

  constructor(readonly limit: number) {
    this.buffer = new GrowableSharedArrayBuffer(Math.min(1 << 20, limit), { maxByteLength: Math.max(limit, 1) });
    this.bytes = new Uint8Array(this.buffer, 0, this.buffer.byteLength);
  }

  /** Where `n` bytes (and one spare) can be written, or -1 if the arena is full. */
  reserve(n: number): number {
    const need = this.length + n + 1;
    if (need > this.limit) return -1;
    if (need > this.buffer.byteLength) {
      (this.buffer as unknown as Growable).grow(Math.min(this.limit, Math.max(need, Math.floor(this.buffer.byteLength * 1.5))));
      this.bytes = new Uint8Array(this.buffer, 0, this.buffer.byteLength);
    }
    return this.length;
  }
}
