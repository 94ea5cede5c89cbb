// `git clone --recurse-submodules[=<pathspec>]`: the clone records submodule.active=<pathspec>
// (each given, `.` by default) before it fetches, then, once the work tree is checked out, runs
// what git runs: `submodule update --require-init --recursive [--depth=1 with
// --shallow-submodules] [--jobs=<n>] [--[no-]single-branch as the clone itself was]`. A failure
// there leaves the superproject in place, as git does, and sets the exit status; a failed
// post-checkout hook stops the clone before it.
import { deepens, NO_DEEPEN } from '../../protocol/index.js';
import { Repository } from '../../repository/repository.js';
import { clone, type CloneOptions, type CloneResult } from '../clone.js';
import type { Reporter } from './init.js';
import { updateSubmodules } from './update.js';

export interface RecurseOptions {
  /** The pathspecs that select the submodules to clone; `['.']` for all. */
  readonly pathspecs: readonly string[];
  /** --shallow-submodules: each submodule cloned with depth 1. */
  readonly shallow?: boolean;
  /** Submodules cloned at once (-j). */
  readonly jobs?: number;
  readonly quiet?: boolean;
  readonly report: Reporter;
}

/** The clone, and the exit status of its submodule update (0 when it had nothing to do). */
export async function cloneRecursive(url: string, options: CloneOptions, recurse: RecurseOptions):
  Promise<CloneResult & { submoduleStatus: number }> {
  const pathspecs = [...new Set(recurse.pathspecs)].sort();
  const active = pathspecs.map((value) => ({ section: 'submodule', subsection: null, key: 'active', value }));
  const result = await clone(url, { ...options, config: [...(options.config ?? []), ...active] });
  if (!result.workTree || options.noCheckout || result.head.oid === null) return { ...result, submoduleStatus: 0 };
  // git's clone goes on to the submodules only when post-checkout succeeded.
  if (result.hookStatus !== 0) return { ...result, submoduleStatus: 0 };
  const repo = new Repository(result.gitDir, result.workTree);
  const shape = options.shape ?? NO_DEEPEN;
  try {
    const status = await updateSubmodules(repo, {
      requireInit: true, recursive: true,
      ...(recurse.shallow ? { depth: 1 } : {}),
      ...(recurse.jobs !== undefined ? { jobs: recurse.jobs } : {}),
      // The superproject's choice, stated: git passes --no-single-branch unless it was shallow
      // (--depth, --shallow-since or --shallow-exclude).
      singleBranch: options.singleBranch ?? deepens(shape),
      // git's clone does not pass --progress on, and the submodules' clones write into a pipe.
      quiet: recurse.quiet ?? false,
      report: recurse.report,
      ...(options.env ? { env: options.env } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onPackStored ? { onPackStored: options.onPackStored } : {}),
    });
    return { ...result, submoduleStatus: status };
  } finally {
    repo.close();
  }
}
