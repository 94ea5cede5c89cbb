// What the first pass inflates, handed to a resolver thread. During the first pass the parsing
// thread must inflate every entry to find where the next begins, while the resolver threads,
// started as soon as the pack header shows enough objects, would wait for the second pass. So the
// parser inflates each whole object (with its "<type> <size>\0" header) and each OFS_DELTA's data
// straight into this ring (shared memory: no copy) and queues it; a resolver thread hashes the
// whole objects and resolves the deltas whose bases it can get (stream-resolve.ts).
//
// One producer (the parser), one consumer (a resolver thread). The producer never waits: when the
// ring or the queue has no room (the consumer is still starting or behind, or an object is large),
// it hashes a whole object itself and leaves a delta to the second pass. Byte positions are
// counters that run past the ring's size and wrap at 2^32; the distance between two of them is
// what matters, and it is never more than the ring's size. The producer also says up to which
// pack offset the pack file has been written, so that the consumer can read bases back from it.

/** Ring bytes: a few hundred typical objects, and room for any object below MAX_OBJECT. */
const RING_BYTES = 1 << 20;
/** Objects above this stay with the parser (see reserve()): a few of them would fill the ring. */
export const MAX_OBJECT = RING_BYTES >>> 3;
/** Queue slots: more than the ring holds of objects of a few hundred bytes. */
const JOBS = 16384;
const JOB_FIELDS = 4; // object number, ring offset, length, byte counter after the job

// Control words.
const JOB_HEAD = 0; // jobs queued (written by the producer)
const JOB_TAIL = 1; // jobs taken (written by the consumer)
const BYTE_TAIL = 2; // byte counter up to which the ring is free again (consumer)
const CLOSED = 3; // 1: no more jobs will come
const CONTROL_WORDS = 4;

/**
 * How long the consumer sleeps when it finds the queue empty, in ms. The producer does not wake it
 * (a wake per object was a system call and a thread switch each, more than the hashing it moved);
 * in a millisecond the parser inflates well under the ring's size, so the ring rarely fills.
 */
const IDLE_WAIT_MS = 1;

/** What crosses to the consumer's thread. */
export interface FirstPassRingBuffers {
  data: SharedArrayBuffer;
  jobs: SharedArrayBuffer;
  control: SharedArrayBuffer;
  /** One 64-bit word: the pack offset up to which the pack file holds the pack's bytes. */
  written: SharedArrayBuffer;
}

/** The parser's end: reserve room, inflate into it, queue it. */
export class FirstPassRingWriter {
  readonly bytes: Buffer;
  private readonly jobs: Int32Array;
  private readonly control: Int32Array;
  private readonly written: BigInt64Array;
  private jobHead = 0;
  private byteHead = 0;
  /** Set by reserve(): where the reserved bytes start and the byte counter after them. */
  private reservedAt = 0;
  private reservedEnd = 0;

  constructor(readonly buffers: FirstPassRingBuffers = {
    data: new SharedArrayBuffer(RING_BYTES),
    jobs: new SharedArrayBuffer(JOBS * JOB_FIELDS * 4),
    control: new SharedArrayBuffer(CONTROL_WORDS * 4),
    written: new SharedArrayBuffer(8),
  }) {
    this.bytes = Buffer.from(buffers.data);
    this.jobs = new Int32Array(buffers.jobs);
    this.control = new Int32Array(buffers.control);
    this.written = new BigInt64Array(buffers.written);
  }

  /** The pack file now holds the pack's bytes up to `offset`. */
  wrote(offset: number): void {
    Atomics.store(this.written, 0, BigInt(offset));
  }

  /**
   * Room for `length` contiguous bytes: their offset in `bytes`, or -1 when there is none now (the
   * caller hashes a whole object itself, and leaves a delta to the second pass). Nothing is taken
   * until publish(); a reservation that is not published (the object was cut off, and will be
   * inflated again) is simply made again.
   */
  reserve(length: number): number {
    if (length > MAX_OBJECT || this.jobHead - Atomics.load(this.control, JOB_TAIL) >= JOBS) return -1;
    const size = this.bytes.length;
    let at = this.byteHead % size;
    // An object never wraps: it starts the ring again, and the end left over is skipped.
    let skip = 0;
    if (at + length > size) {
      skip = size - at;
      at = 0;
    }
    const used = (this.byteHead - Atomics.load(this.control, BYTE_TAIL)) >>> 0;
    if (used + skip + length > size) return -1;
    this.reservedAt = at;
    this.reservedEnd = (this.byteHead + skip + length) >>> 0;
    return at;
  }

  /** Queues the `length` bytes at the last reservation: object `i`'s header and content, or its delta data. */
  publish(i: number, length: number): void {
    const slot = (this.jobHead % JOBS) * JOB_FIELDS;
    this.jobs[slot] = i;
    this.jobs[slot + 1] = this.reservedAt;
    this.jobs[slot + 2] = length;
    // The bytes free again after this job: all that was reserved, even if less was used.
    this.jobs[slot + 3] = this.reservedEnd | 0;
    this.byteHead = this.reservedEnd;
    // No notify: waking the consumer is a system call, and it looks again within IDLE_WAIT_MS.
    Atomics.store(this.control, JOB_HEAD, ++this.jobHead);
  }

  /** No more jobs: the consumer returns once it has taken what is queued. */
  close(): void {
    Atomics.store(this.control, CLOSED, 1);
    Atomics.notify(this.control, JOB_HEAD);
  }
}

/** The consumer's view of how much of the pack file has been written. */
export function writtenTo(buffers: FirstPassRingBuffers): () => number {
  const written = new BigInt64Array(buffers.written);
  return () => Number(Atomics.load(written, 0));
}

/**
 * The resolver thread's end: hands every queued job to `take` (object number, and where its
 * bytes are in `data`) until the writer closes the ring, then returns how many it took. Once
 * `take` returns, the bytes are the writer's again.
 */
export function consumeFirstPassRing(buffers: FirstPassRingBuffers, take: (i: number, data: Uint8Array, at: number, length: number) => void): number {
  const data = new Uint8Array(buffers.data);
  const jobs = new Int32Array(buffers.jobs);
  const control = new Int32Array(buffers.control);
  let tail = Atomics.load(control, JOB_TAIL);
  for (;;) {
    const head = Atomics.load(control, JOB_HEAD);
    if (tail === head) {
      if (Atomics.load(control, CLOSED)) return tail;
      Atomics.wait(control, JOB_HEAD, head, IDLE_WAIT_MS);
      continue;
    }
    while (tail !== head) {
      const slot = (tail % JOBS) * JOB_FIELDS;
      const i = jobs[slot]!, at = jobs[slot + 1]!, length = jobs[slot + 2]!;
      take(i, data, at, length);
      tail++;
      Atomics.store(control, BYTE_TAIL, jobs[slot + 3]!);
      Atomics.store(control, JOB_TAIL, tail);
    }
  }
}
