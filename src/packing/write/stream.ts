// The byte side of a pack being written: entries are appended into fixed-size chunks, each chunk is
// hashed and handed to a sink as soon as it fills, and the SHA-1 trailer closes the stream. Chunks
// carry free headroom in front of the pack bytes so a side-band framer can write its pkt-line
// header in place instead of copying every chunk once more.
import crypto from 'node:crypto';

/** Receives each chunk; a returned promise holds the writer back until the consumer is ready. */
export type ChunkSink = (chunk: Buffer) => void | Promise<void>;

export interface PackStreamOptions {
  /** Pack bytes per chunk (side-band-64k carries 65515 per packet). */
  chunkSize?: number;
  /** Free bytes at the start of each chunk the sink may write into. */
  headroom?: number;
}

/** Copies up to this long go byte by byte. */
const SHORT_COPY = 32;

export class PackStream {
  /** Pack bytes produced so far: the offset the next entry will have. */
  offset = 0;
  private readonly hash = crypto.createHash('sha1');
  private readonly chunkSize: number;
  private readonly headroom: number;
  private buf: Buffer;
  private fill: number;
  private waiting: Promise<void>[] = [];

  constructor(private readonly sink: ChunkSink, options: PackStreamOptions = {}) {
    this.chunkSize = options.chunkSize ?? 65515;
    this.headroom = options.headroom ?? 0;
    this.buf = Buffer.allocUnsafe(this.headroom + this.chunkSize);
    this.fill = this.headroom;
  }

  /** Appends data[start..end). Returns true when a sink asked to wait (call drain() then). */
  write(data: Uint8Array, start = 0, end = data.length): boolean {
    this.offset += end - start;
    while (start < end) {
      const n = Math.min(end - start, this.buf.length - this.fill);
      // Entry headers and small deltas are a few bytes: a loop beats making a view to copy from.
      if (n <= SHORT_COPY) for (let i = 0; i < n; i++) this.buf[this.fill + i] = data[start + i]!;
      else this.buf.set(n === data.length ? data : data.subarray(start, start + n), this.fill);
      this.fill += n;
      start += n;
      if (this.fill === this.buf.length) this.emit();
    }
    return this.mustWait;
  }

  /**
   * Appends up to `length` bytes that `read(buf, pos, n)` puts straight into the chunk being filled,
   * so a copy from a file lands in the chunk without passing through another buffer. Stops after
   * handing over a chunk the sink asked to wait for (call drain() before going on), so a slow
   * receiver never has more than one wait outstanding. Returns how many bytes were appended.
   */
  writeFrom(length: number, read: (buf: Buffer, pos: number, n: number) => void): number {
    let done = 0;
    while (done < length && this.waiting.length === 0) {
      const n = Math.min(length - done, this.buf.length - this.fill);
      read(this.buf, this.fill, n);
      this.fill += n;
      done += n;
      if (this.fill === this.buf.length) this.emit();
    }
    this.offset += done;
    return done;
  }

  /** A sink asked to wait: drain() before writing more. */
  get mustWait(): boolean {
    return this.waiting.length > 0;
  }

  /** Waits for every sink write that asked to be waited for. */
  async drain(): Promise<void> {
    while (this.waiting.length) {
      const all = this.waiting;
      this.waiting = [];
      await Promise.all(all);
    }
  }

  /** Writes the SHA-1 trailer, hands over the last chunk, and returns the pack's checksum. */
  async finish(): Promise<Buffer> {
    if (this.fill > this.headroom) this.hashFilled();
    const digest = this.hash.digest();
    const n = Math.min(digest.length, this.buf.length - this.fill);
    this.buf.set(digest.subarray(0, n), this.fill);
    this.fill += n;
    this.offset += digest.length;
    this.send(this.buf.subarray(0, this.fill));
    if (n < digest.length) {
      const rest = Buffer.allocUnsafe(this.headroom + digest.length - n);
      rest.set(digest.subarray(n), this.headroom);
      this.send(rest);
    }
    this.buf = Buffer.alloc(0);
    await this.drain();
    return digest;
  }

  private hashFilled(): void {
    this.hash.update(this.buf.subarray(this.headroom, this.fill));
  }

  private emit(): void {
    this.hashFilled();
    this.send(this.buf);
    this.buf = Buffer.allocUnsafe(this.headroom + this.chunkSize);
    this.fill = this.headroom;
  }

  private send(chunk: Buffer): void {
    const r = this.sink(chunk);
    if (r) this.waiting.push(r);
  }
}
