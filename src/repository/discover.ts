// Finding the repository the way git's setup does: $GIT_DIR if set; otherwise from the start
// directory upward, a `.git` directory or `gitdir:` file, or the directory itself when it is bare.
// A linked work tree's `.git` file names `<common>/worktrees/<id>`, whose `commondir` file leads
// to the shared directory (core/common-dir.ts).
import fs from 'node:fs';
import path from 'node:path';
import { commonDirFrom, readNamedCommonDir } from '../core/common-dir.js';
import { GitError } from '../core/errors.js';

export interface Location {
  gitDir: string;
  /** Where objects, refs and config are: gitDir, or in a linked work tree the shared directory. */
  commonDir: string;
  /** What gitDir's `commondir` file names, else gitDir: commonDir but for $GIT_COMMON_DIR. */
  namedCommonDir: string;
  workTree: string | null;
}

/**
 * git's is_git_directory: HEAD that looks like a ref or an id, and objects/ and refs/ under the
 * common directory (a linked work tree's git directory has HEAD but neither of the others).
 */
export function isGitDirectory(dir: string, env: NodeJS.ProcessEnv = {}): boolean {
  return gitDirectoryAt(dir, null, env) !== null;
}

/** `dir` as a Location when it is a git directory (isGitDirectory), its `commondir` file read once; else null. */
function gitDirectoryAt(dir: string, workTree: string | null, env: NodeJS.ProcessEnv): Location | null {
  try {
    const namedCommonDir = readNamedCommonDir(dir);
    const commonDir = commonDirFrom(namedCommonDir, env);
    if (!fs.statSync(path.join(commonDir, 'objects')).isDirectory()) return null;
    if (!fs.statSync(path.join(commonDir, 'refs')).isDirectory()) return null;
    const head = fs.readFileSync(path.join(dir, 'HEAD'), 'utf8');
    if (!head.startsWith('ref: refs/') && !/^[0-9a-f]{40}\s*$/.test(head)) return null;
    return { gitDir: dir, commonDir, namedCommonDir, workTree };
  } catch {
    return null;
  }
}

/**
 * The directory a gitfile (`gitdir: <path>`, relative to the file's directory) names: a work
 * tree's `.git` in discovery, a submodule's. null when the file cannot be read; a file that is
 * not a gitfile is refused, as git's read_gitfile refuses it.
 */
export function readGitFile(file: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const m = /^gitdir: (.+?)\s*$/m.exec(text);
  if (!m) throw new GitError('core', 'bad-gitfile', `invalid gitfile format: ${file}`);
  return path.resolve(path.dirname(file), m[1]!);
}

export function discover(start: string, env: NodeJS.ProcessEnv = process.env): Location {
  // $GIT_COMMON_DIR, when set, is the common directory whatever the git directory says.
  const commonEnv = env.GIT_COMMON_DIR ? { GIT_COMMON_DIR: path.resolve(start, env.GIT_COMMON_DIR) } : {};
  if (env.GIT_DIR) {
    const found = gitDirectoryAt(path.resolve(start, env.GIT_DIR), null, commonEnv);
    if (!found) throw new GitError('core', 'not-a-repository', `not a git repository: '${env.GIT_DIR}'`);
    const wt = env.GIT_WORK_TREE ? path.resolve(start, env.GIT_WORK_TREE) : null;
    return { ...found, workTree: wt ?? (isBare(found.commonDir) ? null : start) };
  }
  let dir = path.resolve(start);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    let st: fs.Stats | null = null;
    try { st = fs.statSync(dotGit); } catch { /* not here */ }
    const found = st?.isDirectory() ? gitDirectoryAt(dotGit, dir, commonEnv)
      : st?.isFile() ? gitFileAt(dotGit, dir, commonEnv)
      : null;
    if (found) return found;
    const bare = gitDirectoryAt(dir, null, commonEnv);
    if (bare) return bare;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new GitError('core', 'not-a-repository', 'not a git repository (or any of the parent directories): .git');
}

/** The git directory the gitfile `file` names, as a Location when it is one. */
function gitFileAt(file: string, workTree: string, env: NodeJS.ProcessEnv): Location | null {
  const target = readGitFile(file);
  return target === null ? null : gitDirectoryAt(target, workTree, env);
}

function isBare(gitDir: string): boolean {
  try {
    return /^\s*bare\s*=\s*true\s*$/im.test(fs.readFileSync(path.join(gitDir, 'config'), 'utf8'));
  } catch {
    return false;
  }
}
