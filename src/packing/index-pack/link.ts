// Between the passes: turn what the parser remembered about deltas into the shared structures the
// resolvers walk. OFS_DELTA bases (object numbers) become rows of children per base, REF_DELTAs
// are sorted by base id so any thread can find a new object's children by binary search, and the
// tasks (whole objects with work left in or below them: the first pass resolves and checks most
// of a pack from git as it arrives) are ordered biggest subtree first, so the last task to finish
// is a small one and the threads end together.
import { OID_BYTES } from '../../core/oid.js';
import { OBJ_BLOB, OBJ_OFS_DELTA } from '../../object/type.js';
import type { PackParser } from './parse.js';
import { sortByOid } from './sort.js';
import { STREAMED, type ObjectTable } from './tables.js';

/** Per-object cost of a resolution beyond its bytes, in byte-equivalents (inflate and call overhead). */
const OBJECT_COST = 4096;

/** The links, in SharedArrayBuffers every resolver thread reads. */
export interface DeltaLinks {
  /**
   * OFS_DELTA children by base, as compressed rows: children[childStart[b]..childStart[b+1]).
   * childStart has a row for each REF_DELTA too, for the bases --fix-thin may append.
   */
  childStart: SharedArrayBuffer;
  children: SharedArrayBuffer;
  /** REF_DELTAs sorted by base id: their object numbers, and the base ids in the same order. */
  refObjects: SharedArrayBuffer;
  refIds: SharedArrayBuffer;
  refCount: number;
  /** Object numbers of the bases to start from, biggest subtree first. */
  tasks: SharedArrayBuffer;
  taskCount: number;
  /**
   * A byte per object: 1 where the object, or something below it, still needs the second pass
   * (an unresolved delta, or with --strict an object the first pass did not check). Objects beyond
   * it (--fix-thin's) always do.
   */
  pending: SharedArrayBuffer;
}

/**
 * With `checkAll`, every commit, tree and tag is a task even without children, so that --strict
 * checks it on a resolver thread.
 */
export function linkDeltas(table: ObjectTable, count: number, parser: PackParser, checkAll = false): DeltaLinks {
  const ofsCount = parser.ofsCount;
  const rows = count + parser.refCount;
  const childStart = new Int32Array(new SharedArrayBuffer((rows + 1) * 4));
  const types = table.type, bases = table.base;
  for (let i = 0; i < count; i++) if (types[i] === OBJ_OFS_DELTA) childStart[bases[i]! + 1]!++;
  for (let i = 0; i < rows; i++) childStart[i + 1]! += childStart[i]!;
  const children = new Int32Array(new SharedArrayBuffer(Math.max(ofsCount, 1) * 4));
  // Each base's children in pack order, as git visits them: filled backwards from each row's end,
  // which leaves childStart[b + 1] at row b's start, so the rows are shifted back after. (A copy
  // of childStart as cursors would be 4 bytes an object more, held until a full collection.)
  for (let i = count - 1; i >= 0; i--) if (types[i] === OBJ_OFS_DELTA) children[--childStart[bases[i]! + 1]!] = i;
  for (let b = 0; b < count; b++) childStart[b] = childStart[b + 1]!;
  childStart[count] = ofsCount;

  const refCount = parser.refCount;
  const order = sortByOid(parser.refIds, refCount);
  const refObjects = new Int32Array(new SharedArrayBuffer(Math.max(refCount, 1) * 4));
  const refIds = new Uint8Array(new SharedArrayBuffer(Math.max(refCount, 1) * OID_BYTES));
  for (let k = 0; k < refCount; k++) {
    const from = order[k]!;
    refObjects[k] = parser.refObjects[from]!;
    refIds.set(parser.refIds.subarray(from * OID_BYTES, from * OID_BYTES + OID_BYTES), k * OID_BYTES);
  }

  // Subtree weights over the OFS links (children come after their bases in the pack). A delta's
  // result is taken to be as large as its base's (the table keeps no result sizes): first each
  // object's size, forwards, then the subtrees' sums, backwards. Single precision: they only
  // order the tasks, and the array lives until a full collection.
  const weight = new Float32Array(count);
  for (let i = 0; i < count; i++) weight[i] = types[i] === OBJ_OFS_DELTA ? weight[bases[i]!]! : table.size[i]!;
  for (let i = count - 1; i >= 0; i--) {
    weight[i] += OBJECT_COST;
    if (types[i] === OBJ_OFS_DELTA) weight[bases[i]!] += weight[i]!;
  }
  // What is left for the second pass, marked from each object up its OFS chain (bases come
  // before their deltas, so one backward sweep marks every ancestor).
  const pending = new Uint8Array(new SharedArrayBuffer(Math.max(count, 1)));
  const state = table.state;
  for (let i = count - 1; i >= 0; i--) {
    let p = pending[i]!;
    if (!p) {
      if (table.isDelta(i)) p = state[i] === 0 ? 1 : 0;
      else if (checkAll && types[i] !== OBJ_BLOB && state[i] !== STREAMED) p = 1;
      // A REF_DELTA's base is known by its id alone: any resolved object may be one.
      if (!p && refCount && state[i] !== 0 && hasRefChildren(refIds, refCount, table.ids, i)) p = 1;
      pending[i] = p;
    }
    if (p && types[i] === OBJ_OFS_DELTA) pending[bases[i]!] = 1;
  }
  const roots: number[] = [];
  for (let i = 0; i < count; i++) if (!table.isDelta(i) && pending[i]) roots.push(i);
  roots.sort((a, b) => weight[b]! - weight[a]! || a - b);
  const tasks = new Int32Array(new SharedArrayBuffer(Math.max(roots.length, 1) * 4));
  tasks.set(roots);
  return {
    childStart: childStart.buffer as SharedArrayBuffer, children: children.buffer as SharedArrayBuffer,
    refObjects: refObjects.buffer as SharedArrayBuffer, refIds: refIds.buffer as SharedArrayBuffer, refCount,
    tasks: tasks.buffer as SharedArrayBuffer, taskCount: roots.length, pending: pending.buffer as SharedArrayBuffer,
  };
}

function hasRefChildren(refIds: Uint8Array, refCount: number, ids: Uint8Array, i: number): boolean {
  let lo = 0, hi = refCount;
  const at = i * OID_BYTES;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let c = 0;
    for (let k = 0; k < OID_BYTES && c === 0; k++) c = refIds[mid * OID_BYTES + k]! - ids[at + k]!;
    if (c === 0) return true;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return false;
}
