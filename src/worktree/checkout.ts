// Checking out a tree into a work tree that holds nothing yet (the last step of clone, or
// `checkout` after `clone -n`): plan and vet every path (checkout/plan.ts), decide conversions
// and filters (checkout/conversions.ts), check that the target is empty, write directories and
// files in index order (checkout/directories.ts, checkout/write-entry.ts; filtered files through
// their filter drivers, checkout/write-filtered.ts), then write the index with the stat data of
// every file and the cache-tree.
import type { Progress } from '../core/progress.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import { OID_BYTES, toHex } from '../core/oid.js';
import { OBJ_TREE } from '../object/type.js';
import type { Repository } from '../repository/repository.js';
import { checkoutMessages, planConversions } from './checkout/conversions.js';
import { BlobReader } from './checkout/blob-reader.js';
import { planCheckout, type CheckoutPlan } from './checkout/plan.js';
import { readCheckoutSettings } from './checkout/settings.js';
import { newStatTable, STAT_FIELDS } from './checkout/stat-table.js';
import { WriterThreads, writeInParallel } from './checkout/parallel.js';
import { writePlannedFiles, type WriteSettings } from './checkout/write-files.js';
import { updatingFiles } from './checkout/updating-files.js';
import { IndexLock } from './index-file/write.js';
import { readFilterDrivers } from './filter/driver.js';
import { FilterRunner } from './filter/filters.js';
import { processesNamedAtRoot } from './checkout/filter-warm-up.js';
import type { FilterPass } from './checkout/write-files.js';
import { CE_SKIP_WORKTREE } from './index-file/entry.js';
import { insidePlan, skippedEntries } from './sparse/inside-plan.js';
import { patternWarnings, readSparseCheckout } from './sparse/settings.js';

export interface CheckoutOptions {
  /** Absolute or relative to the process; default: the repository's work tree. */
  workTree?: string;
  /** Check out into a non-empty directory, replacing files and directories in the way. */
  force?: boolean;
  /** The "Updating files" meter. */
  progress?: Progress;
  /** Configuration to honour; default: the repository's, with the global and system files. */
  config?: Config;
  /** The environment of filters too (git's: it adds GIT_DIR in clone, GIT_PREFIX in checkout). */
  env?: NodeJS.ProcessEnv;
  /** The branch checked out, which git tells filters as `ref` (clone does). */
  ref?: string;
  /** Receives git's error lines from filters; by default they go to stderr. */
  log?: (message: string) => void;
}

export interface CheckoutResult {
  /** Index entries written (files, symlinks and submodule directories). */
  entries: number;
  directories: number;
  /**
   * What git prints on stderr as it writes the files, in its order: the warnings about lines of
   * the attributes files it reads, and what it reports as errors without stopping ("error: failed
   * to encode" for a working-tree-encoding).
   */
  messages: string[];
}

/** Where the index lives: $GIT_INDEX_FILE, else <gitDir>/index. */
export function indexPath(gitDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.GIT_INDEX_FILE ? path.resolve(env.GIT_INDEX_FILE) : path.join(gitDir, 'index');
}

/**
 * index.version or $GIT_INDEX_VERSION; 2 by default, as for git. Versions 2 and 3 are the one
 * the entries need: 3 when some has extended flags (`extended`), as git writes them.
 */
export function indexVersion(config: Config, env: NodeJS.ProcessEnv, extended: boolean): 2 | 3 | 4 {
  const v = Number(env.GIT_INDEX_VERSION ?? config.get('index', null, 'version') ??
    (config.getBool('feature', null, 'manyfiles') ? 4 : 2));
  return v === 4 ? 4 : extended ? 3 : 2;
}

/**
 * Threads to write with: checkout.workers as git reads it (below 1: one per core), except that
 * unset also means one per core (git's default is 1; tsgit's threads cost no processes), and
 * only from checkout.thresholdForParallelism entries on (default 1000: a thread costs ~30 ms to
 * start).
 */
function writerThreads(config: Config): { threads: number; threshold: number } {
  const workers = config.getInt('checkout', null, 'workers') ?? 0;
  return {
    threads: Math.min(workers < 1 ? os.availableParallelism() : workers, 8),
    threshold: Math.max(1, config.getInt('checkout', null, 'thresholdforparallelism') ?? 1000),
  };
}

/** Names found in `root` other than the repository's own `.git`; empty when it does not exist. */
function occupants(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names.filter(n => n !== '.git');
}

/**
 * Writes the tree of `commitOrTreeId` (a commit, tag or tree id) into the work tree, then the
 * index. Refuses, before writing anything, an unsafe tree (see checkout/path-check.ts), a
 * required filter with nothing to run, or a non-empty work tree unless `force`. A required
 * filter that fails stops it there; files a filter never delivered fail it once the index is
 * written, as git's clone fails.
 */
export async function checkoutTree(repo: Repository, commitOrTreeId: Uint8Array, options: CheckoutOptions = {}): Promise<CheckoutResult> {
  const env = options.env ?? process.env;
  const target = options.workTree ?? repo.workTree;
  if (!target) throw new GitError('worktree', 'bare', 'this operation must be run in a work tree');
  const root = path.resolve(target);
  const force = options.force ?? false;
  const config = options.config ?? repo.loadConfig(env);
  const sparseWarnings: string[] = [];
  const sparse = readSparseCheckout(config, repo.gitDir, line => sparseWarnings.push(line));

  const treeId = repo.revs().peel(commitOrTreeId, OBJ_TREE, toHex(commitOrTreeId));
  // Writer threads start once the plan shows the checkout is big enough, and boot while it goes on.
  const { threads, threshold } = force ? { threads: 1, threshold: 0 } : writerThreads(config);
  let pool: WriterThreads | null = null;
  const startPool = (): void => { pool = new WriterThreads(threads - 1, repo.odb.objectsDir); };
  const lockFile = indexPath(repo.gitDir, env);
  let lock: IndexLock | null = null;
  let runner: FilterRunner | null = null;
  try {
    // Trees through a chunk reader too: the database would keep every tree in its delta-base
    // cache and its pack windows, 10 MiB for a tree of 100k files, for nothing.
    const drivers = readFilterDrivers(config);
    const filterContext = { cwd: root, env, log: options.log ?? ((m: string) => { process.stderr.write(m); }) };
    // Not in a sparse checkout, which may well write none of the files a filter smudges.
    const warm = sparse ? [] : processesNamedAtRoot(repo.odb, treeId, drivers);
    if (warm.length) {
      runner = new FilterRunner(filterContext);
      for (const command of warm) runner.warmUp(command);
    }
    const trees = new BlobReader(repo.odb);
    let whole: CheckoutPlan;
    try {
      whole = planCheckout(repo.odb, treeId, root, {
        readTree: oid => trees.readTree(oid),
        // Not while a filter process starts: the threads' boot would compete with it for the
        // cores, and the files it smudges are written here anyway, so the threads wait for the
        // count of the others.
        ...threads > 1 && !warm.length ? { bigEnough: threshold, onBig: startPool } : {},
      });
    } finally {
      trees.close();
    }
    // A sparse checkout writes the entries inside its patterns; the index has them all.
    const skip = sparse ? skippedEntries(whole, sparse) : null;
    const plan = skip ? insidePlan(whole, skip) : whole;
    const settings = readCheckoutSettings(config, repo.commonDir, env, root);
    const conversions = planConversions(plan, repo.odb, settings, drivers);

    if (!force) {
      const found = occupants(root);
      if (found.length) {
        throw new GitError('worktree', 'not-empty',
          `refusing to check out into '${root}': it is not empty (found '${found[0]}'); use -f to write over it`);
      }
    }
    fs.mkdirSync(root, { recursive: true });
    lock = IndexLock.acquire(lockFile);
    // Files a filter smudges are written by this thread; threads for too few others are let go.
    const filteredCount = conversions?.filtered?.driverOf.size ?? 0;
    if (pool && plan.count - filteredCount < threshold) {
      await (pool as WriterThreads).close();
      pool = null;
    } else if (!pool && threads > 1 && warm.length && plan.count - filteredCount >= threshold) {
      startPool();
    }
    const parallel: WriterThreads | null = pool;
    const stats = newStatTable(plan.count, parallel !== null);
    const codes = conversions?.codes ?? null;
    const write: WriteSettings = { autocrlf: settings.autocrlf, eol: settings.eol, symlinks: settings.symlinks, encodings: conversions?.encodings };
    let filters: FilterPass | null = null;
    if (conversions?.filtered) {
      runner ??= new FilterRunner(filterContext);
      filters = { filtered: conversions.filtered, session: { runner, ref: options.ref, treeish: toHex(commitOrTreeId) } };
    }
    const meter = updatingFiles(options.progress);
    const result = parallel
      ? await writeInParallel(repo.odb, plan, stats, codes, write, parallel, meter.report, filters)
      : await writePlannedFiles(repo.odb, plan, stats, null, codes, write, force, meter.report, filters);
    meter.stop();
    pool = null;
    // Straight from the columns: an entry object per file would cost more than the plan itself.
    // An entry left out keeps no stat data, as in git.
    const unwritten = new Uint32Array(STAT_FIELDS);
    lock.commitStream(indexVersion(config, env, plan.count < whole.count), whole.count, (out) => {
      for (let i = 0, k = 0; i < whole.count; i++) {
        // No array per entry here: this runs for every file of the checkout.
        const skipped = skip !== null && skip[i] !== 0;
        out.add(skipped ? unwritten : stats, skipped ? 0 : (k++) * STAT_FIELDS, whole.modes[i]!, whole.oids, i * OID_BYTES,
          whole.paths, whole.pathStart[i]!, whole.pathStart[i + 1]!, 0, skipped ? CE_SKIP_WORKTREE : 0);
      }
    }, { cacheTree: whole.cacheTree, extensions: [] });
    if (result.unfiltered) throw new GitError('worktree', 'checkout-incomplete', 'unable to checkout working tree');
    return { entries: whole.count, directories: result.directories, messages: [...patternWarnings(sparseWarnings, plan.modes.subarray(0, plan.count), null, settings.symlinks), ...checkoutMessages(plan, conversions)] };
  } finally {
    lock?.rollback();
    // Threads that never got their job (a refusal, an error) are stopped.
    if (pool) await (pool as WriterThreads).close();
    await runner?.close();
  }
}
