// Reading a reverse index (.rev): pack position -> index position, checked against the pack it
// belongs to. See write.ts for the layout.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import { RIDX_HEADER, RIDX_MAGIC, RIDX_SHA1, RIDX_VERSION } from './write.js';

const LITTLE_ENDIAN = os.endianness() === 'LE';

export class ReverseIndex {
  readonly count: number;

  constructor(readonly buf: Buffer, readonly path: string, objectCount: number) {
    const bad = (what: string) => new CorruptError('pack', `${path}: ${what}`);
    if (buf.length < RIDX_HEADER + 2 * OID_BYTES) throw bad(`reverse index is truncated (${buf.length} bytes)`);
    if (buf.readUInt32BE(0) !== RIDX_MAGIC) throw bad('reverse index has a bad signature');
    const version = buf.readUInt32BE(4);
    if (version !== RIDX_VERSION) throw bad(`unsupported reverse index version ${version}`);
    const hashId = buf.readUInt32BE(8);
    if (hashId !== RIDX_SHA1) throw bad(`unsupported reverse index hash id ${hashId}`);
    if (buf.length !== RIDX_HEADER + objectCount * 4 + 2 * OID_BYTES) {
      throw bad(`reverse index has ${buf.length} bytes, which does not fit ${objectCount} objects`);
    }
    this.count = objectCount;
  }

  static load(path: string, objectCount: number): ReverseIndex {
    return new ReverseIndex(fs.readFileSync(path), path, objectCount);
  }

  /** Index position of the object at pack position `i` (objects in offset order). */
  indexPosition(i: number): number {
    return this.buf.readUInt32BE(RIDX_HEADER + i * 4);
  }

  /** Every index position in pack order (on little-endian hosts one byte swap of a copy). */
  positions(): Uint32Array {
    const bytes = Buffer.from(this.buf.subarray(RIDX_HEADER, RIDX_HEADER + this.count * 4));
    if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0 && bytes.length > 0) {
      bytes.swap32();
      return new Uint32Array(bytes.buffer, bytes.byteOffset, this.count);
    }
    const out = new Uint32Array(this.count);
    for (let i = 0; i < out.length; i++) out[i] = this.indexPosition(i);
    return out;
  }

  /** The checksum of the pack this reverse index describes. */
  packChecksum(): Buffer {
    const at = this.buf.length - 2 * OID_BYTES;
    return this.buf.subarray(at, at + OID_BYTES);
  }

  /** Whether the trailing checksum matches the content. */
  verifyChecksum(): boolean {
    const at = this.buf.length - OID_BYTES;
    return crypto.createHash('sha1').update(this.buf.subarray(0, at)).digest().equals(this.buf.subarray(at));
  }
}
