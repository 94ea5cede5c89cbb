// Writing all of a buffer to a file descriptor. fs.writeSync may write fewer bytes than asked (a
// pipe, a signal) and a non-blocking descriptor may answer EAGAIN, so every writer loops.
import fs from 'node:fs';

/** Writes all of `data` at file `position`, or at the current offset without one. */
export function writeExactly(fd: number, data: Uint8Array, position?: number): void {
  for (let done = 0; done < data.length;) {
    try {
      done += fs.writeSync(fd, data, done, data.length - done, position === undefined ? null : position + done);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}
