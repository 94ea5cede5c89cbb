// The last step of a switch in a sparse checkout, git's apply_sparse_checkout over the result
// (unpack-trees.c), once the two-way merge has decided every path. An entry outside the patterns
// is skip-worktree and has no file: one being written is not, and a kept one whose file is clean
// loses the file (a modified one keeps it, with a warning, and stays an ordinary entry). A
// skip-worktree entry back inside the patterns is written. A new entry takes the bit its path
// calls for.
import { oidEquals } from '../../core/oid.js';
import { displayPath } from '../checkout/path-check.js';
import { entryOid, entryPath, type CheckoutPlan } from '../checkout/plan.js';
import { CE_SKIP_WORKTREE, type IndexEntry } from '../index-file/entry.js';
import type { SparseMatcher } from '../sparse/matcher.js';
import { isSkipped } from '../sparse/index-state.js';
import { lstatOrNull, type CleanChecks } from './clean.js';
import { pathKey } from './tree-entries.js';

export interface SparseResult {
  /** Plan entries to write, ascending. */
  written: number[];
  /** Plan entries the index takes as skip-worktree, unwritten. */
  leftOut: number[];
  /** The entries kept as they were (some now skip-worktree). */
  kept: IndexEntry[];
  /** Files of kept entries that leave the patterns. */
  removeFiles: IndexEntry[];
  /** Modified files left outside the patterns (git's warning), in index order. */
  notUpToDate: string[];
}

/**
 * Applies the patterns to the switch's decisions: `toWrite` (plan entries, whose verdicts `skip`
 * holds: skippedEntries) and `kept` (entries carried over). Files that are replaced by an entry left out are already on the removal list.
 * `force` drops kept files outside the patterns whatever they hold, as git's reset does.
 */
export async function applySparsePatterns(sparse: SparseMatcher, plan: CheckoutPlan, skip: Uint8Array, toWrite: readonly number[],
  kept: readonly IndexEntry[], checks: CleanChecks, fsPath: (e: IndexEntry) => Buffer, force: boolean): Promise<SparseResult> {
  const written: number[] = [], leftOut: number[] = [];
  for (const i of toWrite) (skip[i] ? leftOut : written).push(i);
  let planIndex: Map<string, number> | null = null;
  const result: SparseResult = { written, leftOut, kept: [], removeFiles: [], notUpToDate: [] };
  const verdicts: Promise<void>[] = [];
  for (const e of kept) {
    const out = !sparse.includesEntry(plan.root, e.path, e.mode);
    if (isSkipped(e) && !out) {
      // Back inside: written from the commit when it holds the entry (an entry staged apart
      // from it stays unwritten).
      planIndex ??= new Map(Array.from({ length: plan.count }, (_, i) => [pathKey(entryPath(plan, i)), i]));
      const i = planIndex.get(pathKey(e.path));
      if (i !== undefined && e.mode === plan.modes[i] && oidEquals(e.oid, 0, entryOid(plan, i), 0)) {
        written.push(i);
        continue;
      }
    }
    result.kept.push(e);
    if (isSkipped(e) || !out) continue;
    const leave = (): void => {
      e.extendedFlags |= CE_SKIP_WORKTREE;
      result.removeFiles.push(e);
    };
    // A file already gone is no change to lose (git's verify_uptodate_sparse).
    if (force || !lstatOrNull(fsPath(e))) leave();
    else verdicts.push(checks.isClean(e).then(clean => (clean ? leave() : void result.notUpToDate.push(displayPath(e.path)))));
  }
  await checks.run();
  await Promise.all(verdicts);
  written.sort((a, b) => a - b);
  result.notUpToDate.sort();
  return result;
}
