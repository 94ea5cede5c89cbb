// File contents as runs of text-pool lines. A file is a list of (first line, line count) pairs into
// the pool, so an edit costs a few small arrays instead of a copy of the file, and writing a file
// out is a handful of memcpy calls (each run is one contiguous byte range of the pool).
import type { TextPool } from './text-pool.js';

/** Flat pairs: runs[2k] is a pool line number, runs[2k+1] how many lines follow from there. */
export type Runs = Int32Array;

/** One edit: delete `del` lines at line `at`, then insert `count` pool lines starting at `start`. */
export interface Edit {
  at: number;
  del: number;
  start: number;
  count: number;
}

export function lineCount(runs: Runs): number {
  let n = 0;
  for (let i = 1; i < runs.length; i += 2) n += runs[i]!;
  return n;
}

export function slice(start: number, count: number): Runs {
  return count > 0 ? Int32Array.of(start, count) : new Int32Array(0);
}

/** The runs covering lines [from, to) of `runs`, appended to `out` (adjacent runs are joined). */
function copyLines(runs: Runs, from: number, to: number, out: number[]): void {
  let pos = 0;
  for (let i = 0; i < runs.length && pos < to; i += 2) {
    const s = runs[i]!, c = runs[i + 1]!;
    const lo = Math.max(from, pos), hi = Math.min(to, pos + c);
    if (lo < hi) push(out, s + (lo - pos), hi - lo);
    pos += c;
  }
}

function push(out: number[], start: number, count: number): void {
  if (count <= 0) return;
  const n = out.length;
  if (n > 0 && out[n - 2]! + out[n - 1]! === start) out[n - 1]! += count;
  else out.push(start, count);
}

/**
 * Applies an edit; `at` and `del` are clamped to the file, so an edit recorded on one version of a
 * file can be replayed on another (that is how merges combine both sides' changes).
 */
export function applyEdit(runs: Runs, edit: Edit): Runs {
  const lines = lineCount(runs);
  const at = Math.min(edit.at, lines);
  const end = Math.min(at + edit.del, lines);
  const out: number[] = [];
  copyLines(runs, 0, at, out);
  push(out, edit.start, edit.count);
  copyLines(runs, end, lines, out);
  return Int32Array.from(out);
}

export function byteLength(pool: TextPool, runs: Runs): number {
  let n = 0;
  for (let i = 0; i < runs.length; i += 2) n += pool.lineStart[runs[i]! + runs[i + 1]!]! - pool.lineStart[runs[i]!]!;
  return n;
}

export function materialize(pool: TextPool, runs: Runs): Buffer {
  const out = Buffer.allocUnsafe(byteLength(pool, runs));
  let off = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const a = pool.lineStart[runs[i]!]!, b = pool.lineStart[runs[i]! + runs[i + 1]!]!;
    off += pool.bytes.copy(out, off, a, b);
  }
  return out;
}
