// Reading a known number of bytes from a file descriptor. fs.readSync may return fewer bytes than
// asked (a signal, a file on a network filesystem), so every caller that needs them all loops; a
// read of 0 means the file ends first, which each caller reports in its own terms.
import fs from 'node:fs';

/**
 * Reads `length` bytes at file `position` into buf[offset..offset+length). Throws what
 * `ended(got)` makes when the file ends after `got` of them.
 */
export function readExactly(fd: number, buf: Uint8Array, offset: number, length: number, position: number,
  ended: (got: number) => Error): void {
  for (let done = 0; done < length;) {
    const n = fs.readSync(fd, buf, offset + done, length - done, position + done);
    if (n === 0) throw ended(done);
    done += n;
  }
}
