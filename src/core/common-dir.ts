// The two directories of a repository (gitrepository-layout(5)): the git directory proper, which
// in a linked work tree (`git worktree add`) is `$GIT_COMMON_DIR/worktrees/<id>` and holds only
// what belongs to that work tree (HEAD, index, per-work-tree refs), and the common directory,
// which holds everything shared (objects, other refs, config, hooks, ...). A `commondir` file in
// the git directory names the common one; without it the two are the same directory.
import fs from 'node:fs';
import path from 'node:path';

/**
 * git's get_common_dir_noenv, from the text of `<gitDir>/commondir` (null when there is no such
 * file): the directory it names, relative to gitDir unless absolute; else gitDir.
 */
export function namedCommonDirFrom(gitDir: string, commondirText: string | null): string {
  if (commondirText === null) return gitDir;
  // git strips the trailing newline (and other trailing blanks) of the file's one line.
  const named = commondirText.replace(/\s+$/, '');
  return named === '' ? gitDir : path.resolve(gitDir, named);
}

/**
 * The common directory `<gitDir>/commondir` names, else gitDir: read once as a repository opens,
 * and handed to its refs (which take it as it is) and config (which let $GIT_COMMON_DIR override it).
 */
export function readNamedCommonDir(gitDir: string): string {
  let text: string | null = null;
  try {
    text = fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
  }
  return namedCommonDirFrom(gitDir, text);
}

/** git's get_common_dir: $GIT_COMMON_DIR when set, else the directory the commondir file names. */
export function commonDirFrom(namedCommonDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.GIT_COMMON_DIR ? path.resolve(env.GIT_COMMON_DIR) : namedCommonDir;
}

/**
 * Whether ref `name` belongs to one work tree (refs.c is_per_worktree_ref and the pseudorefs):
 * HEAD, FETCH_HEAD, ORIG_HEAD and the other names outside refs/, and refs/bisect/,
 * refs/worktree/ and refs/rewritten/. Those live (with their reflogs) in the git directory, every
 * other ref in the common one. `name` may be a directory of refs ending in '/'.
 */
export function isPerWorktreeRef(name: string): boolean {
  if (!name.startsWith('refs/')) return name !== 'refs';
  return PER_WORKTREE_REF_DIRS.some((d) => name.startsWith(d));
}

/** The directories of refs that belong to one work tree. */
export const PER_WORKTREE_REF_DIRS: readonly string[] = ['refs/bisect/', 'refs/worktree/', 'refs/rewritten/'];
