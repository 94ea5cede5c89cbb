// Where a submodule may be written, and how its two halves are tied together.
//   - Its path comes from the superproject's index, whose names checkout already vetted; still,
//     each component is checked again here (no `.`, `..` or `.git` in any spelling), and none
//     of its leading directories, nor the path itself, may be a symbolic link (git's
//     validate_submodule_path, CVE-2024-32002: a clone through a symlink writes wherever it
//     points) or hold a repository of its own (the path would lie inside another submodule).
//   - Its git directory `.git/modules/<name>` must not lie inside another submodule's
//     (git's validate_submodule_git_dir: names `a` and `a/hooks` would make the second one the
//     first one's hooks directory).
//   - The work tree's `.git` is a gitfile pointing at that directory, and the directory's
//     core.worktree points back, both as relative paths (git's connect_work_tree_and_git_dir).
import fs from 'node:fs';
import path from 'node:path';
import { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { componentProblem } from '../../object/path-names.js';
import { MODE_GITLINK } from '../../object/tree.js';
import { isGitDirectory, readGitFile } from '../../repository/discover.js';

/** A path or git directory refused; `detail` is the line git prints as `error:` before its `fatal:`. */
export class RefusedPath extends GitError {
  constructor(code: 'unsafe-path' | 'nested-gitdir', message: string, readonly detail: string | null = null) {
    super('client', code, message);
  }
}

function refuse(code: 'unsafe-path' | 'nested-gitdir', message: string, detail: string | null = null): RefusedPath {
  return new RefusedPath(code, message, detail);
}

/** Throws unless `sub` (a '/'-separated path under `workTree`) is safe to clone into. */
export function validateSubmodulePath(workTree: string, sub: string): void {
  const parts = sub.split('/');
  for (const part of parts) {
    const problem = componentProblem(part, MODE_GITLINK);
    if (problem !== null) throw refuse('unsafe-path', `submodule path '${sub}' is not a path git would check out (${problem})`);
  }
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    const full = path.join(workTree, prefix);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(full);
    } catch {
      return; // missing components are created later, by us
    }
    if (st.isSymbolicLink()) {
      throw refuse('unsafe-path', i === parts.length
        ? `expected submodule path '${sub}' not to be a symbolic link`
        : `expected '${prefix}' in submodule path '${sub}' not to be a symbolic link`);
    }
    if (i < parts.length && fs.existsSync(path.join(full, '.git'))) {
      throw refuse('unsafe-path', `submodule path '${sub}' lies inside the repository at '${prefix}'`);
    }
  }
}

/**
 * Throws when a directory above `<modulesDir>/<name>` is itself a git directory; messages show
 * `modulesDir` as `shown` (git names it as it reached it: absolute for a clone, from the top of
 * the work tree for absorbgitdirs).
 */
export function validateSubmoduleGitDir(modulesDir: string, name: string, shown = modulesDir): void {
  const parts = name.split('/');
  for (let i = 1; i < parts.length; i++) {
    if (isGitDirectory(path.join(modulesDir, ...parts.slice(0, i)))) {
      const gitDir = path.join(shown, name), outer = path.join(shown, ...parts.slice(0, i));
      throw refuse('nested-gitdir', `refusing to create/use '${gitDir}' in another submodule's git dir`,
        `submodule git dir '${gitDir}' is inside git dir '${outer}'`);
    }
  }
}

/** git's relative_path: `target` as seen from directory `from` (both absolute). */
function relativeTo(target: string, from: string): string {
  return path.relative(from, target) || '.';
}

/** Writes `<workTree>/.git` ("gitdir: <relative>") and sets core.worktree in `gitDir`'s config. */
export function connectWorkTreeAndGitDir(workTree: string, gitDir: string): void {
  const realWorkTree = fs.realpathSync(workTree);
  const realGitDir = fs.realpathSync(gitDir);
  fs.writeFileSync(path.join(workTree, '.git'), `gitdir: ${relativeTo(realGitDir, realWorkTree)}\n`);
  setCoreWorktree(realGitDir, realWorkTree);
}

/** core.worktree of the repository in `gitDir`, relative to it, as git's ensure_core_worktree. */
export function setCoreWorktree(gitDir: string, workTree: string): void {
  const config = Config.loadSync(gitDir);
  config.set('core', null, 'worktree', relativeTo(workTree, gitDir));
  config.save();
}

/**
 * The git directory a submodule's `.git` names (a gitfile's target, or the directory itself); null
 * if neither. A `.git` file that is not a gitfile is fatal, as in git.
 */
export function submoduleGitDir(workTree: string, sub: string): string | null {
  const dotGit = path.join(workTree, sub, '.git');
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dotGit);
  } catch {
    return null;
  }
  if (st.isDirectory()) return isGitDirectory(dotGit) ? dotGit : null;
  if (!st.isFile()) return null;
  const target = readGitFile(dotGit);
  return target !== null && isGitDirectory(target) ? target : null;
}
