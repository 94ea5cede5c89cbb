// Reading entries back from the pack file being indexed: positional reads into a buffer that keeps
// what follows the entry asked for, and inflation of a whole object or of a delta's data. Both the
// second pass's resolvers (resolve.ts) and the first pass's stream resolver (stream-resolve.ts)
// rebuild bases this way, each thread with its own file descriptor.
import fs from 'node:fs';
import { CorruptError } from '../../core/errors.js';
import { readAtLeast } from '../../core/read-exactly.js';
import { Inflater } from '../../core/zlib.js';
import { MAX_SIZE, type ObjectTable } from './tables.js';

/** Bytes of the pack file read at a time (see readCompressed). */
const READ_AHEAD = 32 * 1024;

export class EntryReader {
  private fd = -1;
  private readBuf: Buffer = Buffer.allocUnsafe(READ_AHEAD);
  /** The pack bytes readBuf holds: [heldFrom, heldTo). */
  private heldFrom = 0;
  private heldTo = 0;
  private readonly inflater = new Inflater();
  private deltaBuf: Buffer = Buffer.allocUnsafe(1 << 16);

  /** `table` is read for each entry's place; `limit(t)` says where reads must stop (see readCompressed). */
  constructor(readonly name: string, private readonly packPath: string, public table: ObjectTable,
    private readonly limit: (t: ObjectTable) => number) {}

  /** Drops what was read ahead: --fix-thin writes its bases where the trailer was. */
  forget(): void {
    this.heldFrom = this.heldTo = 0;
  }

  /** Closes the pack file (it is opened again if needed). */
  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }

  /** A delta's data, inflated from the pack into the delta buffer (valid until the next call). */
  deltaData(i: number, size: number): Uint8Array {
    const t = this.table;
    if (this.deltaBuf.length <= size) this.deltaBuf = allocate(size + 1, () => `${this.name}: entry at offset ${t.offset[i]}`);
    const at = this.readCompressed(i);
    this.inflater.inflateInto(this.readBuf, at, at + this.compressedLength(i), this.deltaBuf, 0, size, 'pack', () => `${this.name}: entry at offset ${t.offset[i]}`);
    return this.deltaBuf;
  }

  /** Inflates a non-delta entry into `out` (at least a byte larger than it), or a buffer of its own. */
  inflateOwned(i: number, out?: Buffer): Buffer {
    const t = this.table;
    const size = t.size[i]!;
    const where = () => `${this.name}: entry at offset ${t.offset[i]}`;
    out ??= allocate(size + 1, where);
    const at = this.readCompressed(i);
    this.inflater.inflateInto(this.readBuf, at, at + this.compressedLength(i), out, 0, size, 'pack', where);
    return out.subarray(0, size);
  }

  private compressedLength(i: number): number {
    return this.table.offset[i + 1]! - this.table.dataOffset(i);
  }

  /**
   * Makes entry `i`'s zlib stream readable in readBuf; returns where it starts there. A read takes
   * READ_AHEAD bytes from the entry on: the next entries a depth-first resolution asks for are
   * often its neighbours in the pack, and each positional read is a system call (~4 us here, more
   * than inflating a small delta). On history it took index-pack from 388k reads to 73k (64 KiB:
   * 43k); on large from 579k to 177k, and one resolver thread from 12.4 to 11.4 s.
   */
  private readCompressed(i: number): number {
    const t = this.table;
    const from = t.dataOffset(i), end = t.offset[i + 1]!;
    if (from >= this.heldFrom && end <= this.heldTo) return from - this.heldFrom;
    // Never past the limit: what follows the last entry (the trailer) is where --fix-thin
    // appends, and while the pack is still arriving nothing beyond what was written is there.
    const len = end - from, want = Math.max(len, Math.min(READ_AHEAD, this.limit(t) - from));
    if (this.readBuf.length < want) this.readBuf = allocate(Math.max(want, this.readBuf.length * 2), () => `${this.name}: entry at offset ${t.offset[i]}`);
    if (this.fd < 0) this.fd = fs.openSync(this.packPath, 'r');
    const got = readAtLeast(this.fd, this.readBuf, 0, len, want, from,
      () => new CorruptError('pack', `${this.packPath}: premature end of pack file reading ${len} bytes at offset ${from}`));
    this.heldFrom = from;
    this.heldTo = from + got;
    return 0;
  }
}

/** Allocates, turning "too large for this process" into an error that names the entry. */
export function allocate(size: number, where: () => string): Buffer {
  try {
    // Beyond what the table's sizes can say (MAX_SIZE also stands for larger sizes).
    if (size > MAX_SIZE) throw new RangeError(`${size} bytes is more than a table size can record`);
    return Buffer.allocUnsafe(size);
  } catch (e) {
    throw new CorruptError('pack', `${where()}: cannot hold an object of ${size} bytes`, { cause: e });
  }
}
