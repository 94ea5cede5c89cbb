// Reading a known number of bytes (or at least that many) from a file descriptor. fs.readSync may
// return fewer bytes than asked (a signal, a file on a network filesystem), so every caller that
// needs them all loops; a read of 0 means the file ends first, which each caller reports in its
// own terms.
import fs from 'node:fs';

/**
 * Reads `length` bytes at file `position` into buf[offset..offset+length). Throws what
 * `ended(got)` makes when the file ends after `got` of them.
 */
export function readExactly(fd: number, buf: Uint8Array, offset: number, length: number, position: number,
  ended: (got: number) => Error): void {
  readAtLeast(fd, buf, offset, length, length, position, ended);
}

/**
 * Reads at least `length` bytes at file `position` into buf[offset..], and as many more as the
 * file gives up to `room` in all, for a reader that takes what follows while it is there. Returns
 * how many it read. Throws what `ended(got)` makes when the file ends after `got` < `length`.
 */
export function readAtLeast(fd: number, buf: Uint8Array, offset: number, length: number, room: number, position: number,
  ended: (got: number) => Error): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, offset + done, room - done, position + done);
    if (n === 0) throw ended(done);
    done += n;
  }
  return done;
}
