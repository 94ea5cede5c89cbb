// Buffered synchronous output to a file descriptor. Commands that print hundreds of thousands of
// lines (rev-list --objects, cat-file --batch) collect them in one buffer and write it in large
// chunks; writeSync keeps ordering with stderr simple and needs no stream back-pressure.
import fs from 'node:fs';
import { OID_BYTES, writeHex } from '../core/oid.js';
import { writeExactly } from '../core/write-exactly.js';

const CHUNK = 1 << 20;

export class Output {
  private buf = Buffer.allocUnsafe(CHUNK);
  private len = 0;

  /** With `held`, output goes into memory (chunks appended there) instead of `fd`. */
  constructor(private readonly fd = 1, private readonly held?: Buffer[]) {}

  text(s: string): void {
    const max = s.length * 3;
    if (this.len + max > this.buf.length) {
      this.flush();
      if (max > this.buf.length) { this.bytes(Buffer.from(s, 'utf8')); return; }
    }
    this.len += this.buf.write(s, this.len, 'utf8');
  }

  /** ASCII-only text (ids, numbers, type names): latin1 writes skip UTF-8 encoding. */
  ascii(s: string): void {
    if (this.len + s.length > this.buf.length) {
      this.flush();
      if (s.length > this.buf.length) { this.bytes(Buffer.from(s, 'latin1')); return; }
    }
    this.len += this.buf.write(s, this.len, 'latin1');
  }

  byte(b: number): void {
    if (this.len >= this.buf.length) this.flush();
    this.buf[this.len++] = b;
  }

  /** An object id as 40 hex digits, written straight into the buffer. */
  hex(oid: Uint8Array, offset: number): void {
    if (this.len + 2 * OID_BYTES > this.buf.length) this.flush();
    writeHex(oid, offset, this.buf, this.len);
    this.len += 2 * OID_BYTES;
  }

  /** data[start..end) up to its first newline (git prints names that way), without a view of it. */
  lineOf(data: Uint8Array, start: number, end: number): void {
    if (this.len + end - start > this.buf.length) {
      this.flush();
      if (end - start > this.buf.length) { const nl = data.subarray(start, end).indexOf(0x0a); this.range(data, start, nl < 0 ? end : start + nl); return; }
    }
    const buf = this.buf;
    let len = this.len;
    for (let i = start; i < end; i++) {
      const c = data[i]!;
      if (c === 0x0a) break;
      buf[len++] = c;
    }
    this.len = len;
  }

  /** data[start..end), without making a view of it. */
  range(data: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (this.len + n > this.buf.length) {
      this.flush();
      if (n > this.buf.length) { this.write(data.subarray(start, end)); return; }
    }
    const buf = this.buf;
    let len = this.len;
    for (let i = start; i < end; i++) buf[len++] = data[i]!;
    this.len = len;
  }

  bytes(data: Uint8Array): void {
    if (this.len + data.length > this.buf.length) {
      this.flush();
      if (data.length > this.buf.length) { this.write(data); return; }
    }
    this.buf.set(data, this.len);
    this.len += data.length;
  }

  flush(): void {
    if (this.len) this.write(this.buf.subarray(0, this.len));
    this.len = 0;
  }

  private write(data: Uint8Array): void {
    if (this.held) this.held.push(Buffer.from(data));
    else writeAll(this.fd, data);
  }
}

/** writeSync until done; a non-blocking pipe answers EAGAIN, which only means "try again". */
export function writeAll(fd: number, data: Uint8Array): void {
  try {
    writeExactly(fd, data);
  } catch (e) {
    // A reader that went away (`tsgit rev-list | head`) ends the command as SIGPIPE would.
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') process.exit(141);
    throw e;
  }
}

/** Text on stderr, written through at once (messages that must come in order with stdout's). */
export function writeStderr(text: string): void {
  writeAll(2, Buffer.from(text, 'utf8'));
}

/** Reads stdin line by line, synchronously (git's batch modes answer each line as it arrives). */
export class LineReader {
  private buf = Buffer.allocUnsafe(0);
  private eof = false;
  private readonly chunk = Buffer.allocUnsafe(65536);

  constructor(private readonly fd = 0) {}

  next(): string | null {
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl >= 0) {
        const line = this.buf.toString('utf8', 0, nl);
        this.buf = this.buf.subarray(nl + 1);
        return line;
      }
      if (this.eof) {
        if (!this.buf.length) return null;
        const line = this.buf.toString('utf8');
        this.buf = Buffer.alloc(0);
        return line;
      }
      let n: number;
      try {
        n = fs.readSync(this.fd, this.chunk, 0, this.chunk.length, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') continue;
        if (code === 'EOF') n = 0; else throw e;
      }
      if (n === 0) this.eof = true;
      else this.buf = Buffer.concat([this.buf, this.chunk.subarray(0, n)]);
    }
  }
}
