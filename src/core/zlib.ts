// Inflating a zlib stream that starts at an offset inside a larger buffer, when the compressed length
// is unknown but the inflated size is declared (pack entries, loose objects); and deflating many
// small objects one after another (a pack writer's fresh compressions).
//
// Node's public zlib API cannot say where a stream ended without a copy per call. The native handle
// behind zlib.Inflate can: reset() it, writeSync() with Z_FINISH into an output one byte larger than
// the declared size, and _writeState then holds [availOut, availIn]. That is ~2 us per small object,
// as fast as C. These are internals, so they are feature-detected once and a slower public path
// (inflateSync with info: true) stands in when they are missing.
//
// zlib.deflateSync builds a whole Deflate stream per call (~15 us of setup, ~256 KiB of zlib state
// and a stream object's worth of garbage), which a served fetch recompressing 60 trees paid 60
// times; the Deflater resets one native handle between objects instead.
import zlib from 'node:zlib';
import { CorruptError, type ErrorLayer } from './errors.js';

const TRUNCATED_MESSAGE = 'unexpected end of file';
/** Output room for Inflater.streamEnded's probe. */
const PROBE = Buffer.alloc(1);

interface NativeHandle {
  reset(): void;
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number,
    out: Uint8Array, outOff: number, outLen: number): void;
  onerror: (message: string, errno: number) => void;
}

/**
 * Data zlib itself refuses (Z_DATA_ERROR and the like, not a stream that merely ends early):
 * `errno` is zlib's status and `zlibMessage` its text, which git prints as
 * `inflate: data stream error (invalid distance too far back)`.
 */
export class ZlibError extends CorruptError {
  constructor(layer: ErrorLayer, where: string, readonly zlibMessage: string, readonly errno: number, options?: { cause?: unknown }) {
    super(layer, `${where}: zlib: ${zlibMessage}`, options);
    this.name = 'ZlibError';
  }
}

/** The native handle and its [availOut, availIn] record behind a zlib stream, when Node exposes them. */
function nativeOf(stream: zlib.Inflate | zlib.Deflate, onerror: (message: string, errno: number) => void): { handle: NativeHandle; state: Uint32Array } | null {
  const z = stream as unknown as { _handle?: NativeHandle; _writeState?: Uint32Array };
  const h = z._handle;
  if (!h || typeof h.reset !== 'function' || typeof h.writeSync !== 'function' || !(z._writeState instanceof Uint32Array)) return null;
  h.onerror = onerror;
  return { handle: h, state: z._writeState };
}

/**
 * Whether `size` bytes cannot come out of a zlib stream of at most `compressed` bytes: deflate's
 * best ratio is about 1032:1 (a run of one byte), and a few bytes of header and trailer. An object
 * header's size is only a claim, and readers allocate it before inflating; a claim like this is
 * a corrupt (or hostile) header, not a reason to ask for gigabytes.
 */
export function beyondInflateRatio(size: number, compressed: number): boolean {
  return size > compressed * 1032 + 64;
}

/** The most a zlib stream of `size` input bytes can take at the default window and memory level (deflateBound). */
export function deflateBound(size: number): number {
  return size + (size >>> 12) + (size >>> 14) + (size >>> 25) + 32;
}

export interface InflateResult {
  /** Compressed bytes the stream occupied. */
  consumed: number;
}

/** A reusable inflater. One per thread; not re-entrant. */
/**
 * Inflates input[offset..end) whole through zlib's public API, which cannot stop or resume
 * mid-stream (for when the native handle is not available): the result must be exactly `size`
 * bytes, and it is never allocated larger than the stream really inflates to (capped just above
 * `size`). Null when the input ends first.
 */
function inflateWhole(input: Uint8Array, offset: number, end: number, size: number, layer: ErrorLayer,
  where: () => string): { buffer: Buffer; used: number } | null {
  let res: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    res = zlib.inflateSync(input.subarray(offset, end), { info: true, maxOutputLength: size + 1 }) as unknown as typeof res;
  } catch (e) {
    if ((e as Error).message === TRUNCATED_MESSAGE) return null;
    throw new ZlibError(layer, where(), (e as Error).message, (e as NodeJS.ErrnoException).errno ?? 0, { cause: e });
  }
  if (res.buffer.length !== size) {
    throw new CorruptError(layer, `${where()}: inflates to ${res.buffer.length} bytes, declared ${size}`);
  }
  return { buffer: res.buffer, used: res.engine.bytesWritten };
}

export class Inflater {
  private handle: NativeHandle | null = null;
  private state: Uint32Array | null = null;
  private lastError: string | null = null;
  private lastErrno = 0;

  constructor() {
    const native = nativeOf(zlib.createInflate(), (message, errno) => { this.lastError = message; this.lastErrno = errno; });
    if (native) ({ handle: this.handle, state: this.state } = native);
  }

  /**
   * Inflates the stream at input[offset..end) into out[outOffset..outOffset+size). Throws a
   * CorruptError naming `where` when the data is not zlib, ends early, or inflates to a size other
   * than `size`. Returns how many input bytes the stream used.
   */
  inflateInto(input: Uint8Array, offset: number, end: number, out: Uint8Array, outOffset: number,
    size: number, layer: ErrorLayer, where: () => string): number {
    const consumed = this.tryInflateInto(input, offset, end, out, outOffset, size, layer, where);
    if (consumed < 0) throw new CorruptError(layer, `${where()}: zlib: ${TRUNCATED_MESSAGE}`);
    return consumed;
  }

  /**
   * Like inflateInto, but returns -1 instead of throwing when the input ends before the stream
   * does, so a reader holding only part of a pack can fetch more and try again. Without an error
   * object for that case: a pack arriving in 64 KiB pieces cuts an entry at nearly every piece,
   * and building an error (its stack and message) each time cost index-pack's first pass ~2% of
   * its time.
   */
  tryInflateInto(input: Uint8Array, offset: number, end: number, out: Uint8Array, outOffset: number,
    size: number, layer: ErrorLayer, where: () => string): number {
    if (this.handle) {
      // One spare byte of output lets us tell "exactly size" from "more than size".
      const spare = out.length > outOffset + size ? out : null;
      const target = spare ?? Buffer.allocUnsafe(size + 1);
      const tOff = spare ? outOffset : 0;
      this.lastError = null;
      this.handle.reset();
      this.handle.writeSync(zlib.constants.Z_FINISH, input, offset, end - offset, target, tOff, size + 1);
      if (this.lastError !== null) {
        if (this.lastError === TRUNCATED_MESSAGE) return -1;
        throw new ZlibError(layer, where(), this.lastError, this.lastErrno);
      }
      const availOut = this.state![0]!, availIn = this.state![1]!;
      if (availOut !== 1) {
        throw new CorruptError(layer, availOut === 0
          ? `${where()}: inflates to more than the declared ${size} bytes`
          : `${where()}: inflates to ${size + 1 - availOut} bytes, declared ${size}`);
      }
      if (!spare) (out as Buffer | Uint8Array).set(target.subarray(0, size), outOffset);
      return end - offset - availIn;
    }
    const res = inflateWhole(input, offset, end, size, layer, where);
    if (res === null) return -1;
    out.set(res.buffer, outOffset);
    return res.used;
  }

  /**
   * Inflates the stream at input[offset..end) in pieces of at most `out.length` bytes, handing each
   * to `sink`, so an object of any declared size is checked (and hashed) without holding it whole.
   * Throws like inflateInto; returns the input bytes used, or -1 when the input ends first.
   */
  inflateChunks(input: Uint8Array, offset: number, end: number, size: number, out: Uint8Array,
    sink: (chunk: Uint8Array) => void, layer: ErrorLayer, where: () => string): number {
    if (!this.handle) {
      const res = inflateWhole(input, offset, end, size, layer, where);
      if (res === null) return -1;
      for (let p = 0; p < size; p += out.length) sink(res.buffer.subarray(p, Math.min(size, p + out.length)));
      return res.used;
    }
    this.begin();
    const used = this.feed(input, offset, end, size, 0, out, sink, layer, where);
    return this.ended ? used : -1;
  }

  /** Whether feed() can take a stream in pieces (the native handle is there); else callers inflate it whole. */
  get feeds(): boolean {
    return this.handle !== null;
  }

  /** Starts a stream for feed(). */
  begin(): void {
    this.handle!.reset();
    this.ended = false;
  }

  /** Whether the stream feed() was given has ended. */
  ended = false;

  /**
   * Inflates what has arrived of a stream begun with begin(): input[offset..end), which may stop
   * short of the stream's end (the rest comes in later calls), in pieces of at most `out.length`
   * bytes handed to `sink`. `produced` bytes came out of earlier calls; the stream must give
   * `size` in all. Returns the input bytes used; `ended` says whether the stream is complete.
   * Throws like inflateChunks.
   */
  feed(input: Uint8Array, offset: number, end: number, size: number, produced: number, out: Uint8Array,
    sink: (chunk: Uint8Array) => void, layer: ErrorLayer, where: () => string): number {
    const handle = this.handle!, state = this.state!;
    let pos = offset;
    for (;;) {
      // One byte past the declared size tells "exact" from "more", as in inflateChunks.
      const want = Math.min(out.length, size + 1 - produced);
      this.lastError = null;
      // Z_SYNC_FLUSH: running out of input is not an error, and the stream can go on later.
      handle.writeSync(zlib.constants.Z_SYNC_FLUSH, input, pos, end - pos, out, 0, want);
      if (this.lastError !== null) throw new ZlibError(layer, where(), this.lastError, this.lastErrno);
      const availOut = state[0]!, availIn = state[1]!;
      const got = want - availOut;
      produced += got;
      pos = end - availIn;
      if (produced > size) throw new CorruptError(layer, `${where()}: inflates to more than the declared ${size} bytes`);
      if (got > 0) sink(out.subarray(0, got));
      if (availOut > 0) {
        // Room left: the stream ended, or the input ran out (maybe just at the stream's end).
        if (availIn === 0 && !this.streamEnded(input, pos, layer, where)) return pos - offset;
        if (produced !== size) throw new CorruptError(layer, `${where()}: inflates to ${produced} bytes, declared ${size}`);
        this.ended = true;
        return pos - offset;
      }
    }
  }

  /**
   * After feed() used all its input: a Z_FINISH call without input says "unexpected end of file"
   * only if the stream has not ended (and leaves it as it was, to go on with more input).
   */
  private streamEnded(input: Uint8Array, pos: number, layer: ErrorLayer, where: () => string): boolean {
    this.lastError = null;
    this.handle!.writeSync(zlib.constants.Z_FINISH, input, pos, 0, PROBE, 0, 1);
    if (this.lastError === null) return true;
    if (this.lastError === TRUNCATED_MESSAGE) return false;
    throw new ZlibError(layer, where(), this.lastError, this.lastErrno);
  }

  /**
   * Inflates at most `max` bytes from the start of the stream into `out` (to read a delta's sizes or
   * a loose object's header without inflating the rest). Returns how many bytes came out.
   */
  inflatePrefix(input: Uint8Array, offset: number, end: number, out: Uint8Array, max: number,
    layer: ErrorLayer, where: () => string): number {
    if (this.handle) {
      this.lastError = null;
      this.handle.reset();
      this.handle.writeSync(zlib.constants.Z_SYNC_FLUSH, input, offset, end - offset, out, 0, max);
      if (this.lastError !== null) throw new ZlibError(layer, where(), this.lastError, this.lastErrno);
      return max - this.state![0]!;
    }
    let res: Buffer;
    try {
      const inf = zlib.inflateSync(input.subarray(offset, end), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: Math.max(max, 64) });
      res = inf;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        // The public API cannot stop early; inflating a little more than asked is the fallback.
        res = zlib.inflateSync(input.subarray(offset, end), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
      } else {
        throw new ZlibError(layer, where(), (e as Error).message, (e as NodeJS.ErrnoException).errno ?? 0, { cause: e });
      }
    }
    const n = Math.min(max, res.length);
    out.set(res.subarray(0, n));
    return n;
  }

}

export function deflate(data: Uint8Array, level = zlib.constants.Z_DEFAULT_COMPRESSION): Buffer {
  return zlib.deflateSync(data, { level });
}

/** A reusable compressor at one zlib level. One per thread and level (deflaterFor); not re-entrant. */
export class Deflater {
  private handle: NativeHandle | null = null;
  private state: Uint32Array | null = null;
  private lastError: string | null = null;
  private out = Buffer.alloc(0);

  constructor(readonly level: number) {
    const native = nativeOf(zlib.createDeflate({ level }), message => { this.lastError = message; });
    if (native) ({ handle: this.handle, state: this.state } = native);
  }

  /** `data` as one whole zlib stream: a view valid until the next call. */
  deflate(data: Uint8Array): Uint8Array {
    if (this.handle) {
      const bound = deflateBound(data.length);
      if (this.out.length < bound) this.out = Buffer.allocUnsafeSlow(Math.max(bound, 2 * this.out.length, 64 * 1024));
      this.lastError = null;
      // deflateReset keeps the level and the allocated state: no setup per object.
      this.handle.reset();
      this.handle.writeSync(zlib.constants.Z_FINISH, data, 0, data.length, this.out, 0, bound);
      const availOut = this.state![0]!, availIn = this.state![1]!;
      // The bound leaves room to spare, so a finished stream always leaves some output unused.
      if (this.lastError === null && availIn === 0 && availOut > 0) return this.out.subarray(0, bound - availOut);
    }
    return zlib.deflateSync(data, { level: this.level });
  }
}

/**
 * One zlib stream deflated from pieces as they come (begin, push..., end), its output handed to
 * `sink` in pieces too: an object too big to hold twice (a loose object written from a pack) is
 * never whole in memory. Where Node's handle is missing the pieces are kept and deflated at the end.
 */
export class DeflateStream {
  private handle: NativeHandle | null = null;
  private state: Uint32Array | null = null;
  private lastError: string | null = null;
  private readonly out = Buffer.allocUnsafe(1 << 16);
  private kept: Buffer[] = [];

  constructor(readonly level = zlib.constants.Z_DEFAULT_COMPRESSION) {
    const native = nativeOf(zlib.createDeflate({ level }), message => { this.lastError = message; });
    if (native) ({ handle: this.handle, state: this.state } = native);
  }

  begin(): void {
    this.handle?.reset();
    this.kept = [];
  }

  /** Deflates `data`, handing out what zlib produces (valid until the next call). */
  push(data: Uint8Array, sink: (chunk: Uint8Array) => void): void {
    if (!this.handle) this.kept.push(Buffer.from(data));
    else this.run(zlib.constants.Z_NO_FLUSH, data, sink);
  }

  /** Ends the stream, handing out the rest. */
  end(sink: (chunk: Uint8Array) => void): void {
    if (!this.handle) {
      sink(zlib.deflateSync(Buffer.concat(this.kept), { level: this.level }));
      this.kept = [];
      return;
    }
    this.run(zlib.constants.Z_FINISH, EMPTY, sink);
  }

  private run(flush: number, data: Uint8Array, sink: (chunk: Uint8Array) => void): void {
    const out = this.out;
    let pos = 0;
    for (;;) {
      this.lastError = null;
      this.handle!.writeSync(flush, data, pos, data.length - pos, out, 0, out.length);
      if (this.lastError !== null) throw new Error(`zlib: ${this.lastError}`);
      const availOut = this.state![0]!, availIn = this.state![1]!;
      if (availOut < out.length) sink(out.subarray(0, out.length - availOut));
      pos = data.length - availIn;
      // Room left over: zlib took all the input (and, finishing, wrote the stream's end).
      if (availOut > 0) return;
    }
  }
}

const EMPTY = Buffer.alloc(0);

const deflaters = new Map<number, Deflater>();

/** The thread's Deflater for `level`, kept for the next pack (a server writes one per fetch). */
export function deflaterFor(level: number): Deflater {
  let d = deflaters.get(level);
  if (!d) deflaters.set(level, d = new Deflater(level));
  return d;
}
