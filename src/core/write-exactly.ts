// Writing all of a buffer (or of several, gathered) to a file descriptor. fs.writeSync may write
// fewer bytes than asked (a pipe, a signal) and a non-blocking descriptor may answer EAGAIN, so
// every writer loops.
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

/** The most buffers one writev takes (Linux's IOV_MAX). */
const IOV_MAX = 1024;

/**
 * Writes all of `buffers`, in order, at the current offset: gathered into as few writev calls as
 * they fit, so that pieces need not be copied into one buffer first.
 */
export function writeAllOf(fd: number, buffers: readonly Uint8Array[]): void {
  let first = 0, skip = 0;
  while (first < buffers.length) {
    const batch: Uint8Array[] = [];
    for (let k = first; k < buffers.length && batch.length < IOV_MAX; k++) {
      batch.push(k === first && skip ? buffers[k]!.subarray(skip) : buffers[k]!);
    }
    let n: number;
    try {
      n = fs.writevSync(fd, batch);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      continue;
    }
    // Past what was written: whole buffers, then into the next.
    n += skip;
    while (first < buffers.length && n >= buffers[first]!.length) n -= buffers[first++]!.length;
    skip = n;
  }
}
