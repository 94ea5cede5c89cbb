// A fetch that does not deepen, from a remote that is itself shallow (git's fetch-pack.c
// update_shallow, shallow.c prepare_shallow_info and assign_shallow_commits_to_refs). The remote's
// boundary commits that are not a boundary here are new roots: those we lacked before the pack
// ("theirs") and those we had ("ours"). A fetched ref whose new history (what our refs do not
// reach) stops at one of them would need .git/shallow to change for its history to be whole: git
// rejects such a ref, or with --update-shallow takes it and writes the roots the fetched refs reach.
//
// A rejected ref's objects stay, so the next fetch finds its tip here with history missing below
// it: git's quickfetch sees the hole and fetches again, which rejects the ref again. So must we:
// connected.ts incompleteTips() is that check.
import { fromHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { OBJ_COMMIT } from '../object/type.js';
import type { RefStore } from '../refs/index.js';
import type { Repository } from '../repository/repository.js';
import { ObjectWalk } from '../walk/object-walk.js';
import { localTips } from './connected.js';
import { peeledValue } from './peel.js';
import { boundaryHere } from './shallow-file.js';

export interface NewRoots {
  readonly ours: readonly string[];
  readonly theirs: readonly string[];
  /**
   * Every root's parents are here, so the pack is closed under its references with what we hold;
   * otherwise the remote's boundary ends it (git checks it with that boundary as a shallow file).
   */
  readonly closed: boolean;
}

/** prepare_shallow_info: the remote's boundary, sorted before its pack is stored. */
export function newRoots(repo: Repository, serverBoundary: readonly string[], shallow: ReadonlySet<string>): NewRoots {
  const ours: string[] = [], theirs: string[] = [];
  for (const oid of serverBoundary) {
    if (!repo.odb.has(fromHex(oid)!)) theirs.push(oid);
    else if (!shallow.has(oid)) ours.push(oid);
  }
  return { ours, theirs, closed: theirs.length === 0 && ours.every((oid) => parentsPresent(repo, oid)) };
}

export interface RootsAssigned {
  /** The fetched tips (hex, as given) whose new history stops at a new root. */
  readonly needy: ReadonlySet<string>;
  /** The new roots some fetched tip stops at: what --update-shallow adds to .git/shallow. */
  readonly reached: string[];
}

/**
 * assign_shallow_commits_to_refs, once the pack is stored: walks `tips` down to what our refs
 * reach (rev-list <tips> --not --all), and within that new history finds the roots each tip
 * reaches, stopping at the first on each line as git's paint_down stops at its BOTTOM commits.
 * Theirs that did not come are dropped (remove_nonexistent_theirs_shallow); ours that our refs
 * reach are left out as git's in_merge_bases_many check leaves them.
 */
export function assignRoots(repo: Repository, refStore: RefStore, roots: NewRoots, tips: readonly string[],
  shallow: ReadonlySet<string>): RootsAssigned {
  const candidates = [...roots.ours, ...boundaryHere(repo.odb, roots.theirs)];
  if (candidates.length === 0) return { needy: new Set(), reached: [] };
  // The remote sent nothing below its boundary: a root whose parents are not all here is where
  // the walk must stop. Ours with their parents here are walked through, so that a root below
  // another is still seen to be reachable from our refs.
  const cut = candidates.filter((oid) => !parentsPresent(repo, oid));
  const walk = historyWalk(repo, refStore, tips, [...shallow, ...cut]);
  if (walk === null) return { needy: new Set(), reached: [] };
  const fresh = new Set(walk.commits());
  const index = (oid: string) => walk.ids.get(fromHex(oid)!);
  const rootAt = new Map<number, string>();
  for (const oid of candidates) {
    const i = index(oid);
    if (fresh.has(i)) rootAt.set(i, oid);
  }
  const reached = new Set<string>();
  // Whether new history from a commit reaches a root, each commit worked out once.
  const needs = new Map<number, boolean>();
  const reaches = (start: number): boolean => {
    const stack = [start];
    while (stack.length) {
      const c = stack[stack.length - 1]!;
      if (needs.has(c)) {
        stack.pop();
        continue;
      }
      const root = rootAt.get(c);
      if (root !== undefined) {
        reached.add(root);
        needs.set(c, true);
        stack.pop();
        continue;
      }
      const parents = (walk.parents[c] ?? new Int32Array(0)).filter((p) => fresh.has(p));
      const pending = parents.filter((p) => !needs.has(p));
      if (pending.length > 0) {
        stack.push(...pending);
        continue;
      }
      needs.set(c, parents.some((p) => needs.get(p)!));
      stack.pop();
    }
    return needs.get(start)!;
  };
  const needy = new Set<string>();
  for (const tip of tips) {
    if (!repo.odb.has(fromHex(tip)!)) continue;
    const i = index(peeledValue(repo.odb, tip) ?? tip);
    if (fresh.has(i) && reaches(i)) needy.add(tip);
  }
  return { needy, reached: candidates.filter((oid) => reached.has(oid)) };
}

/** rev-list <tips> --not --all, with `cut` parentless; null when no tip is here. */
function historyWalk(repo: Repository, refStore: RefStore, tips: readonly string[], cut: readonly string[]): ObjectWalk | null {
  const walk = new ObjectWalk(repo.odb);
  walk.setShallow(cut.map((oid) => fromHex(oid)!));
  let any = false;
  for (const tip of tips) {
    const id = fromHex(tip)!;
    if (!repo.odb.has(id)) continue;
    walk.add(id, '');
    any = true;
  }
  if (!any) return null;
  for (const oid of localTips(repo, refStore)) walk.add(fromHex(oid)!, '', true);
  return walk;
}

function parentsPresent(repo: Repository, oid: string): boolean {
  const o = repo.odb.read(fromHex(oid)!);
  if (!o || o.type !== OBJ_COMMIT) return false;
  return parseCommit(o.data, () => `commit ${oid}`).parents.every((p) => repo.odb.has(p));
}
