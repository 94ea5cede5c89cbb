// The stat data of written files, one row of nine 32-bit fields per index entry (the fields git
// keeps), in a typed array that worker threads can fill in place; and the index entries built
// from a plan and its table once everything is written.
import type fs from 'node:fs';
import type { IndexEntry } from '../index-file/entry.js';
import { storeBigInt } from './fstat.js';
import { entryOid, entryPath, type CheckoutPlan } from './plan.js';

export const STAT_FIELDS = 9;

export function newStatTable(count: number, shared = false): Uint32Array {
  const bytes = count * STAT_FIELDS * 4;
  return new Uint32Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}

/** Records `st` as entry i's stat data: times split into seconds and nanoseconds, the rest truncated to 32 bits as git does. */
export function recordStat(table: Uint32Array, i: number, st: fs.BigIntStats): void {
  storeBigInt(table, i * STAT_FIELDS, st);
}

/** The index entry of plan entry i, with its recorded stat data (taken just now, so up to date). */
export function indexEntry(plan: CheckoutPlan, table: Uint32Array, i: number): IndexEntry {
  const o = i * STAT_FIELDS;
  return {
    ctimeSec: table[o]!, ctimeNsec: table[o + 1]!, mtimeSec: table[o + 2]!, mtimeNsec: table[o + 3]!,
    dev: table[o + 4]!, ino: table[o + 5]!, mode: plan.modes[i]!, uid: table[o + 6]!, gid: table[o + 7]!,
    size: table[o + 8]!, oid: entryOid(plan, i), flags: 0, extendedFlags: 0, path: entryPath(plan, i), uptodate: true,
  };
}
