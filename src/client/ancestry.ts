// Is one commit an ancestor of another (a fast-forward)? A walk from the new commit, newest first,
// that stops once every commit left in the queue is older than the old one by more than a day:
// git's old in_merge_bases heuristic, which tolerates a day of clock skew. Shallow boundaries end
// the walk as they do in git. And how many commits each of two has that the other lacks.
import { fromHex, toHex } from '../core/oid.js';
import { parseCommit, type CommitHeader } from '../object/commit.js';
import { OBJ_COMMIT } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import { ObjectWalk } from '../walk/object-walk.js';

const SKEW_SECONDS = 86400;

export function isAncestor(odb: ObjectStore, ancestor: string, descendant: string, shallow: ReadonlySet<string> = new Set()): boolean {
  if (ancestor === descendant) return true;
  const read = (hex: string) => {
    const o = odb.read(fromHex(hex)!);
    if (!o || o.type !== OBJ_COMMIT) return null;
    return parseCommit(o.data, () => `commit ${hex}`);
  };
  const target = read(ancestor);
  const start = read(descendant);
  if (!target || !start) return false;
  const cutoff = target.time - SKEW_SECONDS;
  const seen = new Set<string>([descendant]);
  // Kept sorted by time, newest last, so pop() gives the newest; each entry keeps the commit it
  // was read as, so no commit is inflated twice.
  const queue: QueuedCommit[] = [{ hex: descendant, time: start.time, commit: start }];
  while (queue.length) {
    const { hex, commit } = queue.pop()!;
    if (hex === ancestor) return true;
    if (shallow.has(hex)) continue;
    for (const p of commit.parents) {
      const ph = toHex(p);
      if (seen.has(ph)) continue;
      seen.add(ph);
      if (ph === ancestor) return true;
      const pc = read(ph);
      if (!pc) continue;
      if (pc.time < cutoff) continue;
      insertSorted(queue, { hex: ph, time: pc.time, commit: pc });
    }
  }
  return false;
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
