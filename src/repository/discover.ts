// Finding the repository the way git's setup does: $GIT_DIR if set; otherwise from the start
// directory upward, a `.git` directory or `gitdir:` file, or the directory itself when it is bare.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';

export interface Location {
  gitDir: string;
  workTree: string | null;
}

/** git's is_git_directory: HEAD that looks like a ref or an id, objects/ and refs/. */
export function isGitDirectory(dir: string): boolean {
  try {
    if (!fs.statSync(path.join(dir, 'objects')).isDirectory()) return false;
    if (!fs.statSync(path.join(dir, 'refs')).isDirectory()) return false;
    const head = fs.readFileSync(path.join(dir, 'HEAD'), 'utf8');
    return head.startsWith('ref: refs/') || /^[0-9a-f]{40}\s*$/.test(head);
  } catch {
    return false;
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
  if (env.GIT_DIR) {
    const gitDir = path.resolve(start, env.GIT_DIR);
    refuseLinkedWorkTree(gitDir, gitDir);
    if (!isGitDirectory(gitDir)) throw new GitError('core', 'not-a-repository', `not a git repository: '${env.GIT_DIR}'`);
    const wt = env.GIT_WORK_TREE ? path.resolve(start, env.GIT_WORK_TREE) : null;
    return { gitDir, workTree: wt ?? (isBare(gitDir) ? null : start) };
  }
  let dir = path.resolve(start);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    let st: fs.Stats | null = null;
    try { st = fs.statSync(dotGit); } catch { /* not here */ }
    if (st?.isDirectory() && isGitDirectory(dotGit)) return { gitDir: dotGit, workTree: dir };
    if (st?.isFile()) {
      const target = readGitFile(dotGit);
      if (target && isGitDirectory(target)) return { gitDir: target, workTree: dir };
      if (target) refuseLinkedWorkTree(target, dir);
    }
    if (isGitDirectory(dir)) return { gitDir: dir, workTree: null };
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new GitError('core', 'not-a-repository', 'not a git repository (or any of the parent directories): .git');
}

/**
 * A linked work tree's git directory (`git worktree add`) keeps HEAD and the index and names the
 * shared one in `commondir`; tsgit reads one directory for everything, so it says so rather than
 * "not a git repository".
 */
function refuseLinkedWorkTree(gitDir: string, where: string): void {
  if (fs.existsSync(path.join(gitDir, 'commondir'))) {
    throw new GitError('core', 'unsupported', `'${where}' is a linked work tree (git worktree, ${gitDir}); tsgit does not support linked work trees`);
  }
}

function isBare(gitDir: string): boolean {
  try {
    return /^\s*bare\s*=\s*true\s*$/im.test(fs.readFileSync(path.join(gitDir, 'config'), 'utf8'));
  } catch {
    return false;
  }
}
