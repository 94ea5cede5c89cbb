// Is one commit an ancestor of another (a fast-forward)? A walk from the new commit, newest first,
// that stops once every commit left in the queue is older than the old one by more than a day:
// git's old in_merge_bases heuristic, which tolerates a day of clock skew. Shallow boundaries end
// the walk as they do in git; which of some commits others reach, by one such walk. And how many
// commits each of two has that the other lacks.
import { fromHex, toHex } from '../core/oid.js';
import { parseCommit, type CommitHeader } from '../object/commit.js';
import { OBJ_COMMIT } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import { ObjectWalk } from '../walk/object-walk.js';

const SKEW_SECONDS = 86400;

export function isAncestor(odb: ObjectStore, ancestor: string, descendant: string, shallow: ReadonlySet<string> = new Set()): boolean {
  return ancestor === descendant || reachableSubset(odb, [ancestor], [descendant], shallow).size > 0;
}

/**
 * Which of the commits `candidates` some commit of `tips` reaches (git's get_reachable_subset):
 * one walk from all the tips, newest first, that passes by commits older than the oldest
 * candidate by more than a day, as isAncestor's heuristic. Ids that are no commit here count for nothing.
 */
export function reachableSubset(odb: ObjectStore, candidates: readonly string[], tips: readonly string[],
  shallow: ReadonlySet<string> = new Set()): Set<string> {
  const read = (hex: string) => {
    const o = odb.read(fromHex(hex)!);
    if (!o || o.type !== OBJ_COMMIT) return null;
    return parseCommit(o.data, () => `commit ${hex}`);
  };
  const wanted = new Set<string>();
  let cutoff = Infinity;
  for (const hex of candidates) {
    const c = read(hex);
    if (!c) continue;
    wanted.add(hex);
    cutoff = Math.min(cutoff, c.time - SKEW_SECONDS);
  }
  const found = new Set<string>();
  const seen = new Set<string>();
  // Kept sorted by time, newest last, so pop() gives the newest; each entry keeps the commit it
  // was read as, so no commit is inflated twice.
  const queue: QueuedCommit[] = [];
  for (const hex of tips) {
    if (seen.has(hex)) continue;
    seen.add(hex);
    const commit = read(hex);
    if (commit) insertSorted(queue, { hex, time: commit.time, commit });
  }
  while (queue.length && found.size < wanted.size) {
    const { hex, commit } = queue.pop()!;
    if (wanted.has(hex)) found.add(hex);
    if (shallow.has(hex)) continue;
    for (const p of commit.parents) {
      const ph = toHex(p);
      if (seen.has(ph)) continue;
      seen.add(ph);
      const pc = read(ph);
      if (!pc || pc.time < cutoff) continue;
      insertSorted(queue, { hex: ph, time: pc.time, commit: pc });
    }
  }
  return found;
}

/**
 * The commits `ours` reaches that `theirs` does not, and those `theirs` reaches that `ours` does
 * not: the two sides of git's `rev-list --left-right ours...theirs`, each walked as rev-list walks
 * `ours ^theirs`, with `shallow` commits parentless.
 */
export function aheadBehind(odb: ObjectStore, ours: Uint8Array, theirs: Uint8Array, shallow: readonly Uint8Array[]): { ahead: number; behind: number } {
  const count = (from: Uint8Array, not: Uint8Array): number => {
    const walk = new ObjectWalk(odb, 1024);
    walk.setShallow(shallow);
    walk.add(from, '');
    walk.add(not, '', true);
    return walk.commits().length;
  };
  return { ahead: count(ours, theirs), behind: count(theirs, ours) };
}

interface QueuedCommit { hex: string; time: number; commit: CommitHeader }

function insertSorted(queue: QueuedCommit[], item: QueuedCommit): void {
  let lo = 0, hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (queue[mid]!.time <= item.time) lo = mid + 1; else hi = mid;
  }
  queue.splice(lo, 0, item);
}
