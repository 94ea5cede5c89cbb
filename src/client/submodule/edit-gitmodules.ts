// `git submodule set-url <path> <newurl>` and `git submodule set-branch (-b <branch> | -d) <path>`
// (submodule--helper's module_set_url and module_set_branch): submodule.<name>.url or .branch
// written into the work tree's `.gitmodules` as `git config -f .gitmodules` writes it (a present
// value replaced where it stands), and for set-url the new URL synced into the superproject's
// config and the submodule's remote, as `submodule sync` would. The submodule is the one
// `.gitmodules` maps at <path>, as in later git: git 2.39 took the path for the name, writing a
// section for a name that need not exist.
import path from 'node:path';
import { toBinary } from '../../config/parse.js';
import { setVariableInFile } from '../../config/write-file.js';
import { GitError } from '../../core/errors.js';
import type { Repository } from '../../repository/repository.js';
import type { Submodule } from './gitmodules.js';
import { syncSubmodule } from './sync.js';
import { listSubmodules, visited, type SubmoduleVisitOptions } from './visit.js';

/** set-url; `p` is from the top of the work tree, as git takes it. */
export function setSubmoduleUrl(repo: Repository, p: string, url: string, o: SubmoduleVisitOptions): void {
  const { sub } = writeSetting(repo, p, 'url', url, o);
  // .gitmodules read again, as git does before it syncs.
  const { sp, list } = listSubmodules(repo, { ...o, paths: [] });
  const entry = list.find((e) => e.path === sub.path);
  if (entry) syncSubmodule(visited(sp, entry, o), o);
}

/** set-branch; a null `branch` removes it (-d). False when there was no branch to remove, git's exit status 1. */
export function setSubmoduleBranch(repo: Repository, p: string, branch: string | null, o: SubmoduleVisitOptions): boolean {
  return writeSetting(repo, p, 'branch', branch, o).written;
}

/** The submodule `.gitmodules` maps at `p`, and whether submodule.<name>.<key> was written (null: removed). */
function writeSetting(repo: Repository, p: string, key: string, value: string | null, o: SubmoduleVisitOptions): { sub: Submodule; written: boolean } {
  const { sp } = listSubmodules(repo, { ...o, paths: [] });
  const sub = sp.submodule(p);
  if (!sub) throw new GitError('client', 'no-mapping', `no submodule mapping found in .gitmodules for path '${p}'`);
  const written = setVariableInFile(path.join(sp.workTree, '.gitmodules'), toBinary(`submodule.${sub.name}.${key}`), value === null ? null : toBinary(value));
  return { sub, written };
}
