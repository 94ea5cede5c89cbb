// `checkout [<tree-ish>] [--] <pathspec>...`, as git's checkout_paths does it (overlay mode):
//   with a tree-ish, its entries the pathspecs match first replace the index's (read_tree_some):
//     an entry of the same mode and blob stays as it is, stat data and all; one of another
//     replaces every stage of its path, and a file a directory of it (or the other way round);
//     index entries the tree does not have are left alone;
//   then every index entry the pathspecs match (one from the tree-ish, when there is one; never a
//     skip-worktree one) is written to the work tree, through the checkout's conversions and
//     filters, unless its file already holds it by git's ie_match_stat (its content read only
//     when the entry is racy), replacing whatever is in its way; HEAD does not move.
// A pathspec that matches nothing, or an unmerged path matched (unless they are to be passed
// over, as -f does), stops it before anything is changed.
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { oidEquals } from '../core/oid.js';
import { MODE_GITLINK } from '../object/tree.js';
import type { Repository } from '../repository/repository.js';
import { indexPath } from './checkout.js';
import { indexEntriesPlan, planBlobs, writeIndexEntries } from './checkout/entries-plan.js';
import { displayPath } from './checkout/path-check.js';
import { entryOid, entryPath, planCheckout } from './checkout/plan.js';
import { readCheckoutSettings } from './checkout/settings.js';
import { readFilterDrivers } from './filter/driver.js';
import { FilterRunner } from './filter/filters.js';
import { CE_INTENT_TO_ADD, compareEntries, emptyIndex, entryStage, isRacy, type CacheTreeNode, type IndexEntry } from './index-file/entry.js';
import { readIndexFile } from './index-file/read.js';
import { IndexLock } from './index-file/write.js';
import { isSkipped } from './sparse/index-state.js';
import { lstatOrNull } from './switch/clean.js';
import { workTreeChecks } from './switch/clean-filters.js';
import { smudgeRacyIfChanged } from './switch/racy-smudge.js';
import { pathKey } from './switch/tree-entries.js';

/** The pathspecs, as the command parsed them. */
export interface PathspecMatcher {
  /** Whether `path` is wanted; with `record`, the pathspecs that match it count as used. */
  matches(path: Uint8Array, record: boolean): boolean;
  /** The pathspecs no recorded path matched, as given. */
  unmatched(): string[];
}

export interface PathCheckoutOptions {
  pathspec: PathspecMatcher;
  /** The tree whose entries the matching paths take first; null: the index's own. */
  source: Uint8Array | null;
  /** Unmerged paths passed over with a warning rather than refused (-f). */
  ignoreUnmerged: boolean;
  env?: NodeJS.ProcessEnv;
  /** What filters are told is checked out (git's checkout metadata): a branch, and a commit or tree. */
  ref?: string;
  treeish?: string;
  log?: (message: string) => void;
  /** Gets blobs (hex ids) the files to write need: a partial clone fetches those it lacks, as git does on demand. */
  fetchBlobs?: (blobs: string[]) => Promise<void>;
}

export interface PathCheckoutResult {
  /** git's errors (without "error: "), when nothing was changed: pathspecs unmatched, paths unmerged. */
  errors: string[];
  /** Unmerged paths passed over (git's "warning: path '%s' is unmerged"). */
  unmerged: string[];
  /** Files written (git's nr_checkouts). */
  written: number;
  /** What git prints on stderr as it writes the files. */
  messages: string[];
}

export async function checkoutPaths(repo: Repository, options: PathCheckoutOptions): Promise<PathCheckoutResult> {
  const env = options.env ?? process.env;
  if (!repo.workTree) throw new GitError('worktree', 'bare', 'this operation must be run in a work tree');
  const root = path.resolve(repo.workTree);
  const config = repo.loadConfig(env);
  const file = indexPath(repo.gitDir, env);
  const lock = IndexLock.acquire(file);
  const log = options.log ?? ((m: string) => { process.stderr.write(m); });
  const runner = new FilterRunner({ cwd: root, env, log });
  const { pathspec } = options;
  try {
    const index = readIndexFile(file) ?? emptyIndex();
    // Entries the tree-ish gave (git's CE_UPDATE), the only ones checked out when there is one.
    const fromTree = new Set<IndexEntry>();
    if (options.source) index.entries = readTreeSome(repo, root, options.source, index.entries, pathspec, fromTree, index);

    const chosen: IndexEntry[] = [];
    const unmerged: string[] = [];
    for (const e of index.entries) {
      if (isSkipped(e) || (options.source && !fromTree.has(e)) || !pathspec.matches(e.path, true)) continue;
      if (entryStage(e) === 0) chosen.push(e);
      else if (unmerged.at(-1) !== displayPath(e.path)) unmerged.push(displayPath(e.path));
    }
    const unmatched = pathspec.unmatched();
    const none = { unmerged: [], written: 0, messages: [] };
    if (unmatched.length) return { errors: unmatched.map(p => `pathspec '${p}' did not match any file(s) known to git`), ...none };
    if (unmerged.length && !options.ignoreUnmerged) return { errors: unmerged.map(p => `path '${p}' is unmerged`), ...none };

    const settings = readCheckoutSettings(config, repo.commonDir, env, root);
    const drivers = readFilterDrivers(config);
    // Files are read back through the attributes of the work tree, with the index's where it has none.
    const tracked = new Map(index.entries.filter(e => entryStage(e) === 0).map(e => [pathKey(e.path), e]));
    const checks = workTreeChecks(root, repo.odb, tracked, { config, settings, drivers, runner, indexTimestampSec: index.timestampSec, log });
    // git's checkout_entry: a file its entry's stat data matches (or, racy, its content) is left
    // as it is, and so is a submodule's directory.
    const write: IndexEntry[] = [];
    const verdicts: Promise<void>[] = [];
    for (const e of chosen) {
      if (e.mode === MODE_GITLINK) {
        if (!lstatOrNull(checks.fsPathOf(e))?.isDirectory()) write.push(e);
        continue;
      }
      const byStat = checks.byStat(e);
      if (byStat === 'changed') write.push(e);
      else if (byStat === 'racy') verdicts.push(checks.isClean(e).then(clean => { if (!clean) write.push(e); }));
    }
    await checks.run();
    await Promise.all(verdicts);
    write.sort(compareEntries);

    let messages: string[] = [];
    if (write.length) {
      const plan = indexEntriesPlan(root, index.entries, write);
      await options.fetchBlobs?.(planBlobs(plan));
      const session = { runner, ...options.ref ? { ref: options.ref } : {}, ...options.treeish ? { treeish: options.treeish } : {} };
      messages = await writeIndexEntries(repo.odb, plan, write, { settings, drivers, session });
    }
    // git smudges a racy entry as it writes the index only when its file no longer matches.
    const racy = index.entries.filter(e => e.mode !== MODE_GITLINK && !isSkipped(e) && !e.uptodate && isRacy(e, index.timestampSec));
    if (racy.length) await smudgeRacyIfChanged(racy, checks);
    lock.commit(index);
    return { errors: [], unmerged, written: write.length, messages };
  } finally {
    lock.rollback();
    await runner.close();
  }
}

/**
 * git's read_tree_some and update_some: the entries of tree `treeId` that `pathspec` matches
 * (vetted as any checkout's are) go into `entries`, each noted in `fromTree`; the new entries,
 * sorted, are returned, and the cache-tree of `index` no longer claims the directories changed.
 */
function readTreeSome(repo: Repository, root: string, treeId: Uint8Array, entries: IndexEntry[], pathspec: PathspecMatcher,
  fromTree: Set<IndexEntry>, index: { cacheTree: CacheTreeNode | null }): IndexEntry[] {
  const plan = planCheckout(repo.odb, treeId, root);
  const current = new Map<string, IndexEntry>();
  for (const e of entries) if (entryStage(e) === 0) current.set(pathKey(e.path), e);
  const incoming = new Map<string, IndexEntry>();
  for (let i = 0; i < plan.count; i++) {
    const p = entryPath(plan, i);
    if (!pathspec.matches(p, false)) continue;
    const mode = plan.modes[i]!, oid = entryOid(plan, i);
    const old = current.get(pathKey(p));
    if (old && old.mode === mode && !(old.extendedFlags & CE_INTENT_TO_ADD) && oidEquals(old.oid, 0, oid, 0)) {
      fromTree.add(old);
      continue;
    }
    const e: IndexEntry = {
      ctimeSec: 0, ctimeNsec: 0, mtimeSec: 0, mtimeNsec: 0, dev: 0, ino: 0, mode, uid: 0, gid: 0, size: 0,
      oid: Buffer.from(oid), flags: 0, extendedFlags: 0, path: Buffer.from(p),
    };
    incoming.set(pathKey(p), e);
    fromTree.add(e);
  }
  if (incoming.size === 0) return entries;
  // add_cache_entry's replacements: every stage of the path, and what a file or directory of its
  // name would clash with.
  const leading = new Set<string>();
  for (const key of incoming.keys()) for (let s = key.indexOf('/'); s >= 0; s = key.indexOf('/', s + 1)) leading.add(key.slice(0, s));
  const replaced = (key: string): boolean => {
    if (incoming.has(key) || leading.has(key)) return true;
    for (let s = key.indexOf('/'); s >= 0; s = key.indexOf('/', s + 1)) if (incoming.has(key.slice(0, s))) return true;
    return false;
  };
  const kept = entries.filter(e => {
    const key = pathKey(e.path);
    if (!replaced(key)) return true;
    invalidateCacheTree(index.cacheTree, key);
    return false;
  });
  for (const key of incoming.keys()) invalidateCacheTree(index.cacheTree, key);
  return [...kept, ...incoming.values()].sort(compareEntries);
}

/**
 * git's cache_tree_invalidate_path: every directory from the root down to `key`'s no longer has
 * a known tree id, and a subtree of `key`'s own name (a directory a file replaces) goes.
 */
function invalidateCacheTree(node: CacheTreeNode | null, key: string): void {
  const names = key.split('/');
  for (let k = 0; node; k++) {
    node.entryCount = -1;
    node.oid = null;
    const name = Buffer.from(names[k]!, 'latin1');
    const at = node.children.findIndex(c => Buffer.compare(c.name, name) === 0);
    if (k === names.length - 1) {
      if (at >= 0) node.children.splice(at, 1);
      return;
    }
    node = at >= 0 ? node.children[at]! : null;
  }
}
