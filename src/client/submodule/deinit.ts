// `git submodule deinit [-f] (--all | <path>...)` (submodule--helper's deinit_submodule): for each
// submodule the pathspec selects that `.gitmodules` maps, its work tree is emptied (its git
// directory stays in .git/modules/<name>, absorbed there first if it was a `.git` directory in
// the work tree, so that nothing of its history goes) and its submodule.<name> section removed
// from the superproject's config, so that update passes it by until it is initialized again.
// Without -f, a work tree with anything `git rm` would refuse to lose stops everything, with
// rm's message and git's. The submodule's core.worktree is unset, as it has no work tree now.
import fs from 'node:fs';
import path from 'node:path';
import { displayName } from '../../config/config.js';
import { posixExtended } from '../../config/posix-regex.js';
import { renameSectionInFile } from '../../config/rename-section.js';
import { ConfigLockError, setVariableInFile } from '../../config/write-file.js';
import { errnoText } from '../../core/errno-text.js';
import { GitError } from '../../core/errors.js';
import type { Repository } from '../../repository/repository.js';
import { absorbSubmodule } from './absorb.js';
import type { Reporter } from './init.js';
import { removalProblem } from './removal-check.js';
import type { Superproject } from './superproject.js';
import type { Submodule } from './gitmodules.js';
import { listSubmodules, visited, type SubmoduleVisitOptions } from './visit.js';

export interface SubmoduleDeinitOptions extends SubmoduleVisitOptions {
  /** Remove work trees even with local changes. */
  readonly force?: boolean;
}

export async function deinitSubmodules(repo: Repository, o: SubmoduleDeinitOptions): Promise<void> {
  const { sp, list } = listSubmodules(repo, o);
  for (const entry of list) {
    const { shown } = visited(sp, entry, o);
    const sub = sp.submodule(entry.path);
    if (!sub) continue;
    const dir = path.join(sp.workTree, entry.path);
    if (isDirectory(dir)) {
      if (isDirectory(path.join(dir, '.git'))) {
        if (!o.quiet) o.report.err(`warning: Submodule work tree '${shown}' contains a .git directory. This will be replaced with a .git file by using absorbgitdirs.\n`);
        absorbSubmodule(sp, entry.path, { ...o, prefix: '', superPrefix: '' });
      }
      if (!o.force) {
        const problem = await removalProblem(sp, entry);
        if (problem !== null) {
          o.report.err(problem);
          throw new GitError('client', 'local-changes', `Submodule work tree '${shown}' contains local modifications; use '-f' to discard them`);
        }
      }
      let cleared = true;
      try {
        fs.rmSync(dir, { recursive: true });
      } catch {
        cleared = false;
      }
      if (!o.quiet) o.report.out(cleared ? `Cleared directory '${shown}'\n` : `Could not remove submodule work tree '${shown}'\n`);
      unsetCoreWorktree(sp, sub, o.report);
    }
    // An empty directory stays, as a checkout leaves one for a submodule not cloned. (git's message has no newline.)
    try {
      fs.mkdirSync(dir);
    } catch {
      o.report.out(`could not create empty submodule directory ${shown}`);
    }
    if (hasSettings(repo, sub.name, sp.env)) {
      // The whole section, so that a later init starts afresh.
      renameSectionInFile(sp.config.path, `submodule.${sub.name}`, null);
      if (!o.quiet) o.report.out(`Submodule '${sub.name}' (${sub.url ?? '(null)'}) unregistered for path '${shown}'\n`);
    }
  }
}

function isDirectory(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * git asks `git config --get-regexp 'submodule.<name>\.'`: any variable, in any file it reads,
 * whose name the pattern finds (the name read as a regular expression, as git reads it).
 */
function hasSettings(repo: Repository, name: string, env: NodeJS.ProcessEnv): boolean {
  const pattern = posixExtended(`submodule.${name}\\.`);
  return pattern !== null && repo.loadConfig(env).list().some((e) => pattern.test(displayName(e)));
}

/** git's submodule_unset_core_worktree, in the submodule's git directory; a warning when there is none to unset. */
function unsetCoreWorktree(sp: Superproject, sub: Submodule, report: Reporter): void {
  const file = path.join(sp.moduleGitDir(sub.name), 'config');
  let unset = false;
  try {
    unset = setVariableInFile(file, 'core.worktree', null);
  } catch (e) {
    if (!(e instanceof ConfigLockError)) throw e;
    report.err(`error: could not lock config file ${path.relative(sp.workTree, file)}: ${errnoText(e.cause)}\n`);
  }
  if (!unset) report.err(`warning: Could not unset core.worktree setting in submodule '${sub.path}'\n`);
}
