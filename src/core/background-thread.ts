// Marks the calling thread as background work: on Linux a thread has its own nice value, found by
// its id (/proc/thread-self), so a worker thread can yield the CPUs to the threads (and processes)
// that others wait for, and still use what they leave idle. Elsewhere it does nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The nice value of background threads: a tenth of a normal thread's share when all are busy. */
const BACKGROUND_NICE = 10;

export function runInBackground(): void {
  try {
    const tid = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) os.setPriority(tid, BACKGROUND_NICE);
  } catch {
    // No /proc, or not allowed: the thread keeps its priority.
  }
}
