// The delta search of git's pack-objects (find_deltas and try_delta), for the objects a pack would
// otherwise hold whole. A repository that takes its history a push at a time keeps each small push
// loose, and a repack that only copies stored deltas leaves every version of every file whole: 40
// one-line pushes of two files made a 740 KiB pack where git's repack made 56 KiB, and every clone
// carries the difference. So, as git does, the candidates are sorted by type, then by the name
// hash of their path (files with the same name meet), then largest first, and each is diffed
// against the few before it (the window); the smallest delta wins. Objects already stored whole in
// a pack may serve as bases but keep their stored form; only the objects that would be compressed
// afresh take deltas, so a repository whose packs are already good costs nothing here.
import { OID_BYTES } from '../../core/oid.js';
import type { ProgressMeter } from '../../core/progress.js';
import { DeltaIndex } from '../../pack/delta-encode.js';

/** Objects a delta is tried against: git's pack.window (each object meets the nine before it). */
const WINDOW = 10;
/** Longest chain of deltas the search makes: git's pack.depth. */
export const MAX_SEARCH_DEPTH = 50;
/** Smaller objects are not worth a delta (git's try_delta skips them too). */
const MIN_SIZE = 50;
/** Larger objects are neither diffed nor held in the window: they go whole. */
export const MAX_SEARCH_SIZE = 16 << 20;
/** Deltas kept for the writer; past this they are made again when written (git's pack.deltaCacheSize). */
const CACHE_LIMIT = 64 << 20;
/** The search yields to the event loop this often, so an abort or a slow receiver is heard. */
const SLICE_MS = 50;

export interface DeltaSearchInput {
  /** The objects: each may take a delta against another and serve as a base. */
  readonly objects: readonly number[];
  /** Whether a delta of `target` against `base` is worth trying. */
  readonly mayDiff: (target: number, base: number) => boolean;
  readonly type: (idx: number) => number;
  readonly size: (idx: number) => number;
  readonly nameHash: (idx: number) => number;
  /** The object's bytes; null when it cannot be read (it is then left out). */
  readonly read: (idx: number) => Uint8Array | null;
  readonly meter?: ProgressMeter | null;
  /** Called between objects: throws to stop the search (the receiver went away). */
  readonly checkpoint?: () => void;
}

export interface FoundDelta {
  readonly target: number;
  readonly base: number;
  /** The delta, unless the cache was full: the writer then makes it again. */
  readonly delta: Uint8Array | null;
}

/** Whether `size` lets an object take part in the search. */
export function searchable(size: number): boolean {
  return size >= MIN_SIZE && size <= MAX_SEARCH_SIZE;
}

/**
 * The deltas found, each against a base that comes before its target in the sorted order, so the
 * bases of a chain never lead back to the object itself.
 */
export async function searchDeltas(input: DeltaSearchInput): Promise<FoundDelta[]> {
  const { type, size, nameHash } = input;
  const list = input.objects.slice();
  const hash = new Map<number, number>();
  for (const idx of list) hash.set(idx, nameHash(idx));
  // git's type_size_sort: type, name hash, size, all descending; then the enumeration's order.
  list.sort((a, b) => type(b) - type(a) || hash.get(b)! - hash.get(a)! || size(b) - size(a) || a - b);

  const ringIdx = new Int32Array(WINDOW).fill(-1);
  const ringData: (Uint8Array | null)[] = new Array(WINDOW).fill(null);
  // Each window entry's index is built once, when a target first needs it, and serves every target
  // after it; an entry no target is diffed against (the last of its type, or too unlike the next
  // in size) is never indexed.
  const ringIndex = Array.from({ length: WINDOW }, () => new DeltaIndex());
  const ringIndexed = new Uint8Array(WINDOW);
  const ringDepth = new Uint8Array(WINDOW);
  let pos = 0;
  let cached = 0;
  let done = 0;
  const found: FoundDelta[] = [];
  let yieldAt = Date.now() + SLICE_MS;
  for (const e of list) {
    input.checkpoint?.();
    if (Date.now() >= yieldAt) {
      await new Promise((resolve) => setImmediate(resolve));
      yieldAt = Date.now() + SLICE_MS;
    }
    const data = input.read(e);
    if (!data) continue;
    let best: Uint8Array | null = null, bestBase = -1, bestDepth = 0;
    for (let j = 1; j < WINDOW; j++) {
      const slot = (pos - j + WINDOW) % WINDOW;
      const b = ringIdx[slot]!;
      if (b < 0) break;
      // The list is sorted by type first: the rest of the window is of other types.
      if (type(b) !== type(e)) break;
      const srcDepth = ringDepth[slot]!;
      if (srcDepth >= MAX_SEARCH_DEPTH || !input.mayDiff(e, b)) continue;
      // try_delta's limits: half the target less a base id at first, then shorter than the best so
      // far; both scaled down as the base's chain gets deeper.
      const limit = best ? best.length : Math.floor(data.length / 2) - OID_BYTES;
      const refDepth = best ? bestDepth : 1;
      const maxSize = Math.floor(limit * (MAX_SEARCH_DEPTH - srcDepth) / (MAX_SEARCH_DEPTH - refDepth + 1));
      if (maxSize <= 0) continue;
      const src = ringData[slot]!;
      const srcLength = src.length;
      if (srcLength < data.length && data.length - srcLength >= maxSize) continue;
      if (data.length < srcLength / 32) continue;
      const index = ringIndex[slot]!;
      if (!ringIndexed[slot]) {
        index.reset(src);
        ringIndexed[slot] = 1;
      }
      const delta = index.delta(data, maxSize);
      if (!delta) continue;
      // Of two deltas the same size, the shallower.
      if (best && delta.length === best.length && srcDepth + 1 >= bestDepth) continue;
      best = delta.slice();
      bestBase = b;
      bestDepth = srcDepth + 1;
    }
    if (best) {
      const keep = cached + best.length <= CACHE_LIMIT;
      if (keep) cached += best.length;
      found.push({ target: e, base: bestBase, delta: keep ? best : null });
    }
    input.meter?.update(++done);
    ringIdx[pos] = e;
    ringData[pos] = data;
    // The entry it replaces is let go, indexed or not.
    if (ringIndexed[pos]) ringIndex[pos]!.release();
    ringIndexed[pos] = 0;
    ringDepth[pos] = best ? bestDepth : 0;
    pos = (pos + 1) % WINDOW;
  }
  return found;
}
