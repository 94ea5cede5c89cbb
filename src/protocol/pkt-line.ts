// pkt-line framing (gitprotocol-common): four hex digits giving the whole packet's length, then
// the payload. 0000 is flush, 0001 delim and 0002 response-end (protocol v2); 0003 means nothing
// and anything above 65520 is too long. A length field is checked byte by byte as it arrives, so a
// stranger's garbage is refused at once rather than after we have buffered what it promised.
import { CorruptError, GitError } from '../core/errors.js';

/** Largest pkt-line, header included. */
export const MAX_PKT_LENGTH = 65520;
/** Largest payload of one pkt-line. */
export const MAX_PKT_PAYLOAD = MAX_PKT_LENGTH - 4;

export const FLUSH_PKT: Buffer = Buffer.from('0000', 'latin1');
export const DELIM_PKT: Buffer = Buffer.from('0001', 'latin1');
export const RESPONSE_END_PKT: Buffer = Buffer.from('0002', 'latin1');

/** `offset` is where the packet's length field starts in the stream. */
export type Packet =
  | { type: 'data'; payload: Buffer; offset: number }
  | { type: 'flush'; offset: number }
  | { type: 'delim'; offset: number }
  | { type: 'response-end'; offset: number };

const HEX_DIGITS = '0123456789abcdef';

/** Frames one payload; strings are written as UTF-8. */
export function pktLine(data: string | Uint8Array): Buffer {
  const length = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  if (length > MAX_PKT_PAYLOAD) {
    throw new GitError('protocol', 'too-long',
      `pkt-line payload of ${length} bytes exceeds the ${MAX_PKT_PAYLOAD}-byte limit`);
  }
  const out = Buffer.allocUnsafe(length + 4);
  writeLength(out, 0, length + 4);
  if (typeof data === 'string') out.write(data, 4, 'utf8');
  else out.set(data, 4);
  return out;
}

/** Writes the 4-hex-digit length field `total` at `offset` of `out`. */
export function writeLength(out: Uint8Array, offset: number, total: number): void {
  out[offset] = HEX_DIGITS.charCodeAt((total >> 12) & 15);
  out[offset + 1] = HEX_DIGITS.charCodeAt((total >> 8) & 15);
  out[offset + 2] = HEX_DIGITS.charCodeAt((total >> 4) & 15);
  out[offset + 3] = HEX_DIGITS.charCodeAt(total & 15);
}

/** The payload without one trailing LF: receivers must treat "a\n" and "a" alike. */
export function stripLf(payload: Buffer): Buffer {
  return payload.length > 0 && payload[payload.length - 1] === 0x0a ? payload.subarray(0, payload.length - 1) : payload;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10; // git's reader accepts upper case too
  return -1;
}

function shown(bytes: Uint8Array): string {
  return JSON.stringify(Buffer.from(bytes).toString('latin1'));
}

/**
 * Incremental pkt-line decoder. Feed it chunks with push(); call next() until it returns null
 * (every byte of the chunk is then consumed), then push the next chunk. A packet that lies inside
 * one chunk is returned as a view of that chunk; only a packet split across chunks is copied, into
 * a buffer of exactly its size. So the decoder holds at most one chunk and one partial packet.
 */
export class PktLineDecoder {
  private chunk: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** Stream offset of chunk[0]. */
  private chunkBase = 0;
  private readonly header = Buffer.alloc(4);
  private headerFill = 0;
  private partial: Buffer | null = null;
  private partialFill = 0;
  private packetStart = 0;
  private failure: Error | null = null;

  /** `source` names the stream in error messages ("upload-pack stdin", a URL). */
  constructor(readonly source = 'pkt-line stream') {}

  /** Bytes of the stream consumed so far. */
  get offset(): number {
    return this.chunkBase + this.pos;
  }

  push(chunk: Uint8Array): void {
    if (this.pos < this.chunk.length) {
      throw new GitError('protocol', 'misuse', `PktLineDecoder.push on ${this.source} before next() consumed the previous chunk`);
    }
    this.chunkBase += this.chunk.length;
    this.chunk = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.pos = 0;
  }

  /** The next complete packet, or null when more input is needed. */
  next(): Packet | null {
    if (this.failure) throw this.failure;
    try {
      return this.decode();
    } catch (e) {
      this.failure = e as Error;
      throw e;
    }
  }

  /**
   * Bytes after the last packet returned, for streams that leave pkt-line framing (a v0 pack sent
   * without side-band follows the final ACK/NAK directly). Only valid between packets.
   */
  takeRest(): Buffer {
    if (this.headerFill > 0 || this.partial) {
      throw new GitError('protocol', 'misuse', `${this.source}: takeRest() in the middle of a pkt-line`);
    }
    const rest = this.chunk.subarray(this.pos);
    this.pos = this.chunk.length;
    return rest;
  }

  /** Call at end of input: a half-received packet means the stream was cut. */
  finish(): void {
    if (this.failure) throw this.failure;
    if (this.headerFill > 0) {
      throw new CorruptError('protocol', `${this.source}: truncated pkt-line at offset ${this.packetStart}: ` +
        `stream ended after ${this.headerFill} of 4 length bytes (${shown(this.header.subarray(0, this.headerFill))})`);
    }
    if (this.partial) {
      throw new CorruptError('protocol', `${this.source}: truncated pkt-line at offset ${this.packetStart}: ` +
        `length ${this.partial.length + 4} declared, stream ended after ${this.partialFill + 4} bytes`);
    }
  }

  private decode(): Packet | null {
    const chunk = this.chunk;
    if (this.partial) return this.fillPartial();
    let length: number;
    if (this.headerFill === 0 && chunk.length - this.pos >= 4) {
      this.packetStart = this.chunkBase + this.pos;
      length = this.parseLength(chunk, this.pos, 4);
      this.pos += 4;
    } else {
      if (this.headerFill === 0) this.packetStart = this.chunkBase + this.pos;
      while (this.headerFill < 4 && this.pos < chunk.length) this.header[this.headerFill++] = chunk[this.pos++]!;
      // Checking the bytes we have now refuses a bad length before waiting for the rest.
      if (this.headerFill < 4) {
        this.parseLength(this.header, 0, this.headerFill);
        return null;
      }
      this.headerFill = 0;
      length = this.parseLength(this.header, 0, 4);
    }
    const offset = this.packetStart;
    if (length < 4) {
      if (length === 0) return { type: 'flush', offset };
      if (length === 1) return { type: 'delim', offset };
      return { type: 'response-end', offset };
    }
    const size = length - 4;
    if (chunk.length - this.pos >= size) {
      const payload = chunk.subarray(this.pos, this.pos + size);
      this.pos += size;
      return { type: 'data', payload, offset };
    }
    this.partial = Buffer.allocUnsafe(size);
    this.partialFill = 0;
    return this.fillPartial();
  }

  private fillPartial(): Packet | null {
    const partial = this.partial!;
    const n = Math.min(partial.length - this.partialFill, this.chunk.length - this.pos);
    this.chunk.copy(partial, this.partialFill, this.pos, this.pos + n);
    this.partialFill += n;
    this.pos += n;
    if (this.partialFill < partial.length) return null;
    this.partial = null;
    return { type: 'data', payload: partial, offset: this.packetStart };
  }

  /** Validates `count` (1..4) length bytes; returns the length once all four are there. */
  private parseLength(bytes: Uint8Array, at: number, count: number): number {
    let length = 0;
    for (let i = 0; i < count; i++) {
      const v = hexValue(bytes[at + i]!);
      if (v < 0) {
        throw new CorruptError('protocol', `${this.source}: invalid pkt-line length ${shown(bytes.subarray(at, at + count))} ` +
          `at offset ${this.packetStart}: byte ${this.packetStart + i} is not a hex digit`);
      }
      length = (length << 4) | v;
    }
    if (count === 4 && (length === 3 || length > MAX_PKT_LENGTH)) {
      throw new CorruptError('protocol', `${this.source}: invalid pkt-line length ${shown(bytes.subarray(at, at + 4))} ` +
        `at offset ${this.packetStart}: ${length === 3 ? '0003 is not a valid packet' : `${length} exceeds the maximum of ${MAX_PKT_LENGTH}`}`);
    }
    return length;
  }
}

/** Decodes a complete in-memory stream (a stateless HTTP body); throws if it ends mid-packet. */
export function decodePktLines(data: Uint8Array, source?: string): Packet[] {
  const decoder = new PktLineDecoder(source);
  decoder.push(data);
  const packets: Packet[] = [];
  for (let p = decoder.next(); p; p = decoder.next()) packets.push(p);
  decoder.finish();
  return packets;
}

/** What request parsers read from: a PacketReader, or anything else that yields packets. */
export interface PacketSource {
  /** Names the stream in error messages. */
  readonly source: string;
  /** The next packet, or null at a clean end of input. */
  read(): Promise<Packet | null>;
  /** The next packet without consuming it. */
  peek(): Promise<Packet | null>;
}

/**
 * Pulls packets from a byte stream (a Node Readable, a socket, an array of Buffers). It asks for
 * the next chunk only when the decoder needs it, so a slow consumer holds back the producer.
 */
export class PacketReader implements PacketSource, AsyncIterable<Packet> {
  private readonly decoder: PktLineDecoder;
  private readonly chunks: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
  private peeked: Packet | null | undefined = undefined;
  private ended = false;

  constructor(input: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, readonly source = 'pkt-line stream') {
    this.decoder = new PktLineDecoder(source);
    this.chunks = Symbol.asyncIterator in input
      ? (input as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
      : (input as Iterable<Uint8Array>)[Symbol.iterator]();
  }

  /** Bytes consumed so far (including a peeked packet). */
  get offset(): number {
    return this.decoder.offset;
  }

  async peek(): Promise<Packet | null> {
    if (this.peeked === undefined) this.peeked = await this.pull();
    return this.peeked;
  }

  async read(): Promise<Packet | null> {
    if (this.peeked !== undefined) {
      const p = this.peeked;
      this.peeked = undefined;
      return p;
    }
    return this.pull();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Packet> {
    for (let p = await this.read(); p; p = await this.read()) yield p;
  }

  /** The unframed bytes that follow the last packet read (a v0 pack sent without side-band). */
  async *rest(): AsyncGenerator<Buffer> {
    if (this.peeked !== undefined) throw new GitError('protocol', 'misuse', `${this.source}: rest() after peek()`);
    const first = this.decoder.takeRest();
    if (first.length > 0) yield first;
    while (!this.ended) {
      const r = await this.chunks.next();
      if (r.done) { this.ended = true; break; }
      if (r.value.length > 0) yield Buffer.from(r.value.buffer, r.value.byteOffset, r.value.length);
    }
  }

  private async pull(): Promise<Packet | null> {
    for (;;) {
      const p = this.decoder.next();
      if (p) return p;
      if (this.ended) return null;
      const r = await this.chunks.next();
      if (r.done) {
        this.ended = true;
        this.decoder.finish();
        return null;
      }
      this.decoder.push(r.value);
    }
  }
}

/** Async iteration over the packets of a Node Readable (or any async iterable of chunks). */
export function readPackets(input: AsyncIterable<Uint8Array>, source?: string): AsyncIterable<Packet> {
  return new PacketReader(input, source);
}
