// Trees read ahead on a worker thread, for `rev-list --objects` on big repositories.
//
// Reading trees (locating, inflating, applying deltas, caching bases) is most of such a walk's
// time, and the order trees are needed in depends only on trees: each commit's root tree, then
// depth-first each subtree not seen before. So a worker (tree-walk-worker.ts) walks the trees in
// exactly the order ObjectWalk.enumerate() would, with a seen-set of its own, and writes each new
// tree's id and bytes into a ring in shared memory; the main thread interns blobs and prints, and
// at each tree entry asks whether the worker's next record is that tree (it is iff the tree is new).
// The main thread hands the worker root trees as the commit walk shows commits, so the two overlap.
// Each root's records end with an END record, new or not: so the answer to "is the next record
// this tree?" is always on its way once the root has been sent, and a reader that must wait first
// sends the roots it holds back (a reader waiting on a worker waiting for roots would hang).
//
// The ring: records of [int32 kind][int32 data length][20-byte id][data], padded to 4 bytes, written
// contiguously (a WRAP record sends the reader back to the start). Write and read positions are byte counters
// that wrap at 2^32; each side waits on the other's counter with Atomics.wait.
import { errorData, errorFromData, type ErrorData, type GitError } from '../core/errors.js';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { OID_BYTES } from '../core/oid.js';

/** Record kinds. A tree: its id and bytes. */
export const TREE = 0;
/** Nothing more before the end of the ring: go on at its start. */
export const WRAP = 1;
/** The end of one root's trees (the root itself and its new subtrees, or none if it was seen). */
export const END = 2;
/** Reading the record's tree failed; the data is the error as JSON. */
export const FAILED = 3;
/** The tree is too big for the ring: the reader reads it itself. */
export const TOO_BIG = 4;
/** The worker stopped (its parse of a tree failed, as the reader's will at the same entry). */
export const STOPPED = 5;
/** A commit the walk shows (commit-walk-worker.ts): its id, and its root tree's id as the data. */
export const COMMIT = 6;

/** Control words (Int32Array indices): the two positions, and for each side whether it waits and where it wants waking. */
export const WRITE = 0;
const READ = 1, READER_WAITS = 2, WRITER_WAITS = 4;
/** Bumped by the main thread after each batch of root trees it posts. */
export const ROOTS = 6;
/** Set when the worker has exited. */
export const EXITED = 7;
export const CONTROL_WORDS = 8;
/** A waiter re-checks at least this often, so a lost wake-up costs a pause, never a hang. */
const WAIT_MS = 50;
/**
 * A waiting side is woken only once this much can be done (or the other side is about to wait
 * itself): a futex wake per tree cost more than a fifth of the worker's time.
 */
const BATCH_BYTES = 64 * 1024;

/** Errors cross the ring as JSON of errorData(), rebuilt as their own class by the reader. */
export function serializeError(e: unknown): string {
  return JSON.stringify(errorData(e, 'walk'));
}

export function deserializeError(json: string): GitError {
  return errorFromData(JSON.parse(json) as ErrorData);
}

/** kind, data length, id. */
const HEADER = 8 + OID_BYTES;

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** Shared state of one ring: the bytes and the control words. */
export class TreeRing {
  readonly bytes: Uint8Array;
  readonly words: Int32Array;
  readonly control: Int32Array;
  readonly size: number;

  constructor(readonly ringBuffer: SharedArrayBuffer, readonly controlBuffer: SharedArrayBuffer) {
    this.bytes = new Uint8Array(ringBuffer);
    this.words = new Int32Array(ringBuffer);
    this.control = new Int32Array(controlBuffer);
    this.size = ringBuffer.byteLength;
  }

  static create(size: number): TreeRing {
    return new TreeRing(new SharedArrayBuffer(size), new SharedArrayBuffer(CONTROL_WORDS * 4));
  }

  /**
   * Blocks until control[at] is no longer `seen`, asking the other side to wake us once it has
   * moved it to `wakeAt` (or is about to wait itself), or a while has passed.
   */
  wait(at: number, seen: number, waits: number, wakeAt: number): void {
    const c = this.control;
    Atomics.store(c, waits + 1, wakeAt);
    Atomics.store(c, waits, 1);
    if (Atomics.load(c, at) === seen) Atomics.wait(c, at, seen, WAIT_MS);
    Atomics.store(c, waits, 0);
  }

  /**
   * After moving control[at] to `pos`: wakes the other side if it waits for that (or `always`).
   * The flag is cleared here, so a side that is slow to be scheduled is woken once, not once per
   * record written meanwhile.
   */
  wake(at: number, pos: number, waits: number, always: boolean): void {
    const c = this.control;
    if (Atomics.load(c, waits) && (always || ((pos - Atomics.load(c, waits + 1)) | 0) >= 0) &&
      Atomics.compareExchange(c, waits, 1, 0) === 1) Atomics.notify(c, at);
  }
}

/** The worker's side: writes records in the order the reader will want them. */
export class TreeRingWriter {
  private write = 0;

  constructor(private readonly ring: TreeRing) {}

  /** Writes a record; TREE, COMMIT and error records (errorRecord) carry data. */
  record(kind: number, id: Uint8Array, idOff: number, data: Uint8Array, dataLen: number): void {
    const ring = this.ring;
    const need = HEADER + align4(dataLen);
    if (need > ring.size / 2) {
      this.record(TOO_BIG, id, idOff, data, 0);
      return;
    }
    let pos = this.write & (ring.size - 1);
    // A record never wraps: if it does not fit before the end, the tail is skipped.
    const tail = ring.size - pos;
    const total = need <= tail ? need : tail + need;
    this.waitForSpace(total);
    if (need > tail) {
      ring.words[pos >> 2] = WRAP;
      pos = 0;
    }
    ring.words[pos >> 2] = kind;
    ring.words[(pos >> 2) + 1] = dataLen;
    const bytes = ring.bytes;
    for (let i = 0; i < OID_BYTES; i++) bytes[pos + 8 + i] = id[idOff + i]!;
    if (dataLen) bytes.set(dataLen === data.length ? data : data.subarray(0, dataLen), pos + HEADER);
    this.write = (this.write + total) | 0;
    Atomics.store(ring.control, WRITE, this.write);
    // A reader waiting for a tree is woken once a batch is ready; for an error at once.
    ring.wake(WRITE, this.write, READER_WAITS, kind === FAILED || kind === STOPPED);
  }

  /** A FAILED or STOPPED record carrying `e`, which the reader's error() rebuilds. */
  errorRecord(kind: typeof FAILED | typeof STOPPED, id: Uint8Array, idOff: number, e: unknown): void {
    const json = Buffer.from(serializeError(e), 'utf8');
    this.record(kind, id, idOff, json, json.length);
  }

  /** Wakes the reader if it waits for anything: call before this side waits for something else. */
  flush(): void {
    this.ring.wake(WRITE, this.write, READER_WAITS, true);
  }

  private waitForSpace(total: number): void {
    const ring = this.ring;
    for (;;) {
      const read = Atomics.load(ring.control, READ);
      const free = ring.size - ((this.write - read) | 0);
      if (free >= total) return;
      this.flush();
      ring.wait(READ, read, WRITER_WAITS, (read + Math.min(ring.size - free, total - free + BATCH_BYTES)) | 0);
    }
  }
}

/** The main thread's side: peeks and takes records, in order. */
export class TreeRingReader {
  private read = 0;
  /** Where the peeked record starts in the ring, or -1 before peek(). */
  private at = -1;
  private kind = 0;

  /** `starving` is called before each wait: it must send the worker any roots held back. */
  constructor(private readonly ring: TreeRing, private readonly starving: () => void) {}

  /** The next record's kind, blocking until the worker has written it. */
  peek(): number {
    if (this.at >= 0) return this.kind;
    const ring = this.ring;
    for (;;) {
      const write = Atomics.load(ring.control, WRITE);
      if (write !== this.read) break;
      if (Atomics.load(ring.control, EXITED)) throw new Error('the walk\'s worker thread exited early');
      this.starving();
      ring.wake(READ, this.read, WRITER_WAITS, true);
      ring.wait(WRITE, write, READER_WAITS, (write + BATCH_BYTES) | 0);
    }
    let pos = this.read & (ring.size - 1);
    if (ring.words[pos >> 2] === WRAP) {
      this.read = (this.read + ring.size - pos) | 0;
      pos = 0;
    }
    this.at = pos;
    return this.kind = ring.words[pos >> 2]!;
  }

  /** Whether a record can be peeked without waiting. */
  ready(): boolean {
    return this.at >= 0 || Atomics.load(this.ring.control, WRITE) !== this.read;
  }

  /** Whether the next record is about the id at buf[off..off+20); false at the end of a root's trees. */
  nextIs(buf: Uint8Array, off: number): boolean {
    const k = this.peek();
    if (k === END) return false;
    // The worker stops on a malformed entry, which the reader rejects first: getting here is a bug.
    if (k === STOPPED) throw this.dataLength() ? this.error() : new Error('the tree-reading worker stopped early');
    const bytes = this.ring.bytes, p = this.at + 8;
    for (let i = 0; i < OID_BYTES; i++) if (bytes[p + i] !== buf[off + i]) return false;
    return true;
  }

  /** The ring's bytes: the peeked record's id is at idAt(), its data at dataAt(). */
  get bytes(): Uint8Array {
    return this.ring.bytes;
  }

  idAt(): number {
    return this.at + 8;
  }

  dataAt(): number {
    return this.at + HEADER;
  }

  dataLength(): number {
    return this.ring.words[(this.at >> 2) + 1]!;
  }

  /** The error the peeked record (written by errorRecord) carries. */
  error(): GitError {
    const at = this.dataAt();
    return deserializeError(Buffer.from(this.ring.bytes.subarray(at, at + this.dataLength())).toString('utf8'));
  }

  /** Consumes the END record that closes the root just listed. */
  endRoot(): void {
    if (this.peek() !== END) throw new Error('the tree-reading worker is out of step with the walk');
    this.release();
  }

  /** Consumes the peeked record: its bytes may be overwritten from now on. */
  release(): void {
    this.read = (this.read + HEADER + align4(this.dataLength())) | 0;
    this.at = -1;
    Atomics.store(this.ring.control, READ, this.read);
    this.ring.wake(READ, this.read, WRITER_WAITS, false);
  }
}

/** Root trees, from the main thread's commit walk to the worker: ids in batches on a port. */
export class RootSender {
  private batch = new Uint8Array(64 * OID_BYTES);
  private n = 0;
  /** The first root goes at once, so the worker starts early; later ones in full batches. */
  private first = true;

  constructor(private readonly port: MessagePort, private readonly ring: TreeRing) {}

  add(buf: Uint8Array, off: number): void {
    const b = this.batch, at = this.n;
    for (let i = 0; i < OID_BYTES; i++) b[at + i] = buf[off + i]!;
    this.n += OID_BYTES;
    if (this.n === b.length || this.first) this.flush();
  }

  /** No more roots. */
  end(): void {
    this.flush();
    this.post(null);
  }

  /** Sends the roots held back. */
  flush(): void {
    this.first = false;
    if (!this.n) return;
    this.post(this.batch.slice(0, this.n));
    this.n = 0;
  }

  private post(batch: Uint8Array | null): void {
    this.port.postMessage(batch);
    Atomics.add(this.ring.control, ROOTS, 1);
    Atomics.notify(this.ring.control, ROOTS);
  }
}

/** The worker's end of RootSender: the next batch of root ids, or null when there are no more. */
export function receiveRoots(port: MessagePort, ring: TreeRing, writer: TreeRingWriter): Uint8Array | null {
  for (;;) {
    const seen = Atomics.load(ring.control, ROOTS);
    const msg = receiveMessageOnPort(port);
    if (msg) return msg.message as Uint8Array | null;
    writer.flush();
    Atomics.wait(ring.control, ROOTS, seen, WAIT_MS);
  }
}
