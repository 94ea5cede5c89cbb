// The bytes of the pack being parsed: a window that holds what has arrived and not yet been
// parsed (plus the entry being parsed, however large), so the first pass never holds the whole
// pack. Offsets are pack offsets; bytes[i] is the byte at offset start + i.
export class PackWindow {
  bytes: Buffer;
  /** Pack offset of bytes[0]. */
  start = 0;
  /** Pack offset just past the last byte held. */
  end = 0;

  constructor(capacity = 1 << 20) {
    this.bytes = Buffer.allocUnsafe(capacity);
  }

  /**
   * Room for `n` more bytes at bytes[end - start], dropping what lies before pack offset `keep`
   * (nothing before it will be asked for again). Returns the index to write at.
   */
  reserve(n: number, keep: number): number {
    const used = this.end - keep;
    if (this.end - this.start + n > this.bytes.length) {
      if (used + n > this.bytes.length) {
        const bigger = Buffer.allocUnsafe(Math.max(used + n, this.bytes.length * 2));
        this.bytes.copy(bigger, 0, keep - this.start, this.end - this.start);
        this.bytes = bigger;
      } else {
        this.bytes.copy(this.bytes, 0, keep - this.start, this.end - this.start);
      }
      this.start = keep;
    }
    return this.end - this.start;
  }

  /** Gives the bytes back once the pass is over: the resolution that follows reads the pack file. */
  release(): void {
    this.bytes = Buffer.alloc(0);
    this.start = this.end;
  }

  append(chunk: Uint8Array, keep: number): void {
    const at = this.reserve(chunk.length, keep);
    this.bytes.set(chunk, at);
    this.end += chunk.length;
  }
}
