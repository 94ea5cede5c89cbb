// Buffers for delta results and bases, reused: most results are a few kilobytes and live only
// until their own children are done, so recycling them (by power-of-two size class) spares an
// allocation and the garbage collector's work per object.

/** Results above this get a buffer of their own instead of one from the pool. */
export const POOLED_MAX = 1 << 20;

export class BufferPool {
  private readonly free: Buffer[][] = [];
  private bytes = 0;

  /**
   * `limit`: free bytes kept. It must cover what a thread's stack of bases gives back as it
   * unwinds: a buffer refused here is garbage that only the collector frees, and it runs by heap
   * size, not by these buffers outside the heap. A pool of 1 MiB against 64 KiB trees (a flat
   * directory of 1,500 files) threw away 1.6 GB in the resolution of an 80k-commit history and
   * held ~40 MiB of it at a time.
   */
  constructor(private readonly limit: number) {}

  /** A buffer of at least `n` bytes. */
  take(n: number): Buffer {
    if (n > POOLED_MAX) return Buffer.allocUnsafe(n);
    const c = n <= 64 ? 6 : 32 - Math.clz32(n - 1);
    const b = this.free[c]?.pop();
    if (b) {
      this.bytes -= b.length;
      return b;
    }
    return Buffer.allocUnsafe(1 << c);
  }

  /** Takes back a buffer that take() gave out; what does not fit under the limit is left to the collector. */
  give(b: Buffer): void {
    if (b.length > POOLED_MAX || this.bytes + b.length > this.limit) return;
    const c = 31 - Math.clz32(b.length);
    if ((1 << c) !== b.length) return;
    (this.free[c] ??= []).push(b);
    this.bytes += b.length;
  }
}
