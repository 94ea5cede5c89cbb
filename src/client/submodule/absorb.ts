// `git submodule absorbgitdirs [<path>...]` (submodule.c's absorb_git_dir_into_superproject): a
// submodule whose `.git` is a directory in its work tree (a repository cloned or made there, then
// added) has that directory moved to the superproject's `.git/modules/<name>`, where update would
// have cloned it, and a gitfile written in its place, core.worktree pointing back. Then the same
// inside it, with its own submodules: their git directories go to `.git/modules/<name>/modules/`,
// and gitfiles that pointed into the directory just moved are pointed at where it went. A `.git`
// that is already a gitfile stays as it is; an unpopulated submodule is passed over.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { isGitDirectory, readGitFile } from '../../repository/discover.js';
import { Repository } from '../../repository/repository.js';
import { errnoText } from '../../core/errno-text.js';
import type { Reporter } from './init.js';
import { RefusedPath, connectWorkTreeAndGitDir, validateSubmoduleGitDir } from './paths.js';
import type { Superproject } from './superproject.js';
import { nestedOptions, visitSubmodules, type SubmoduleVisitOptions } from './visit.js';

export function absorbGitDirs(repo: Repository, o: SubmoduleVisitOptions): void {
  visitSubmodules(repo, o, ({ sp, entry }) => absorbSubmodule(sp, entry.path, o));
}

/**
 * Absorbs the git directory of the submodule at `p` (already vetted by validateSubmodulePath),
 * then those of its own submodules. Messages name it below `o.superPrefix`, as git's do.
 */
export function absorbSubmodule(sp: Superproject, p: string, o: SubmoduleVisitOptions): void {
  const shown = `${o.superPrefix ?? ''}${p}`;
  const gitDir = absorbOne(sp, p, shown, o.report);
  if (gitDir === null) return;
  const sub = new Repository(gitDir, path.join(sp.workTree, p));
  try {
    absorbGitDirs(sub, nestedOptions(o, shown));
  } finally {
    sub.close();
  }
}

/** The submodule's git directory once absorbed; null when it is not populated. */
function absorbOne(sp: Superproject, p: string, shown: string, report: Reporter): string | null {
  const workTree = path.join(sp.workTree, p);
  const dotGit = path.join(workTree, '.git');
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dotGit);
  } catch {
    return null;
  }
  if (st.isFile()) {
    const target = readGitFile(dotGit);
    if (target !== null && isGitDirectory(target)) return target;
    // A gitfile into a directory that moved: its superproject (a submodule itself) was just
    // absorbed, and the relative path no longer reaches. It is where git keeps it now.
    const moved = sp.moduleGitDir(nameOf(sp, p));
    connectWorkTreeAndGitDir(workTree, moved);
    return moved;
  }
  if (!st.isDirectory() || !isGitDirectory(dotGit)) throw new GitError('client', 'not-a-repo', `not a git repository: ${dotGit}`);
  return relocate(sp, p, shown, dotGit, report);
}

/** git's relocate_single_git_dir_into_superproject. */
function relocate(sp: Superproject, p: string, shown: string, dotGit: string, report: Reporter): string {
  // Linked work trees name the directory by its absolute path, which the move would break.
  if (fs.existsSync(path.join(dotGit, 'worktrees')) && fs.readdirSync(path.join(dotGit, 'worktrees')).length > 0) {
    throw new GitError('client', 'worktrees', `relocate_gitdir for submodule '${p}' with more than one worktree not supported`);
  }
  const name = nameOf(sp, p);
  const oldDir = fs.realpathSync(dotGit);
  try {
    const modules = path.join(sp.commonDir, 'modules');
    validateSubmoduleGitDir(modules, name, path.relative(sp.workTree, modules));
  } catch (e) {
    if (!(e instanceof RefusedPath)) throw e;
    if (e.detail !== null) report.err(`error: ${e.detail}\n`);
    throw new GitError('client', 'nested-gitdir', `refusing to move '${oldDir}' into an existing git dir`);
  }
  const target = sp.moduleGitDir(name);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const newDir = path.join(fs.realpathSync(path.dirname(target)), path.basename(target));
  report.err(`Migrating git directory of '${shown}' from\n'${oldDir}' to\n'${newDir}'\n`);
  try {
    fs.renameSync(oldDir, newDir);
  } catch (e) {
    throw new GitError('client', 'io', `could not migrate git directory from '${oldDir}' to '${newDir}': ${errnoText(e)}`);
  }
  connectWorkTreeAndGitDir(path.join(sp.workTree, p), newDir);
  return newDir;
}

function nameOf(sp: Superproject, p: string): string {
  const sub = sp.submodule(p);
  if (!sub) throw new GitError('client', 'no-mapping', `could not lookup name for submodule '${p}'`);
  return sub.name;
}
