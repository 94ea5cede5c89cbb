// What `git rm -qn <path>` says of a submodule, which `submodule deinit` runs before it removes
// the work tree without -f (builtin/rm.c's check_local_mod, submodule.c's bad_to_remove_submodule):
//   staged  HEAD does not record the index's commit at the path (a submodule added, or moved on,
//           and not committed);
//   local   the submodule's HEAD is another commit, or its work tree is not clean as
//           `git status --porcelain -uall --ignore-submodules=none` sees it: a tracked file
//           changed or staged, a file it does not track, the same inside a nested submodule, or
//           a `.git` that is not a gitfile where it has content.
// Unlike git, a file the submodule's .gitignore ignores counts too: tsgit reads no ignore files,
// and would rather refuse than delete work.
import fs from 'node:fs';
import path from 'node:path';
import { fromHex, toHex } from '../../core/oid.js';
import { NotFoundError } from '../../core/errors.js';
import { Repository } from '../../repository/repository.js';
import { indexPath } from '../../worktree/checkout.js';
import { workTreeState } from '../../worktree/clean-state.js';
import { MODE_GITLINK } from '../../object/tree.js';
import { readIndexFile } from '../../worktree/index-file/read.js';
import type { ListedSubmodule, Superproject } from './superproject.js';
import { submoduleGitDir } from './paths.js';
import { submoduleEnv } from './visit.js';

/** git rm's error for the path, or null when it would remove it. */
export async function removalProblem(sp: Superproject, entry: ListedSubmodule): Promise<string | null> {
  const staged = headGitlink(sp.repo, entry.path) !== entry.oid;
  const local = await changed(sp.workTree, entry.path, entry.oid, submoduleEnv(sp.env));
  if (local && staged) return `error: the following file has staged content different from both the\nfile and the HEAD:\n    ${entry.path}\n(use -f to force removal)\n`;
  if (staged) return `error: the following file has changes staged in the index:\n    ${entry.path}\n(use --cached to keep the file, or -f to force removal)\n`;
  if (local) return `error: the following file has local modifications:\n    ${entry.path}\n(use --cached to keep the file, or -f to force removal)\n`;
  return null;
}

/** The commit HEAD's tree records at `p`, hex; null on an unborn branch or where it has none. */
function headGitlink(repo: Repository, p: string): string | null {
  try {
    const id = repo.revs().tryResolve(`HEAD:${p}`);
    return id && toHex(id);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/** Whether the submodule at `p` (below `workTree`), recorded at `oid`, has anything removal would lose. */
async function changed(workTree: string, p: string, oid: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const dir = path.join(workTree, p);
  const gitDir = submoduleGitDir(workTree, p);
  if (gitDir === null) return !isEmptyDirectory(dir) && fs.existsSync(dir);
  const sub = new Repository(gitDir, dir);
  try {
    const head = sub.refs.head().oid;
    if (head !== null && head !== oid) return true;
    // A nested repository still in its work tree would go with it (git's submodule_uses_gitfile).
    if (!fs.lstatSync(path.join(dir, '.git')).isFile()) return true;
    return await dirty(sub, dir, env);
  } finally {
    sub.close();
  }
}

/** What `status --porcelain -uall --ignore-submodules=none` would show anything for. */
async function dirty(repo: Repository, dir: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const head = repo.refs.head().oid;
  if (await workTreeState(repo, head === null ? null : fromHex(head), { env }) !== 'clean') return true;
  const entries = readIndexFile(indexPath(repo.gitDir, env))?.entries ?? [];
  const tracked = new Set(entries.map((e) => Buffer.from(e.path).toString('utf8')));
  // Nested submodules, which workTreeState leaves out: another commit staged, or changes inside.
  for (const e of entries) {
    if (e.mode !== MODE_GITLINK) continue;
    const p = Buffer.from(e.path).toString('utf8');
    if (headGitlink(repo, p) !== toHex(e.oid) || await changed(dir, p, toHex(e.oid), env)) return true;
  }
  return hasUntracked(dir, '', tracked);
}

/**
 * A file below `dir`/`rel` that the index does not list, or a repository there (shown as one
 * untracked directory); `.git` entries are neither, as in git.
 */
function hasUntracked(dir: string, rel: string, tracked: ReadonlySet<string>): boolean {
  for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (d.name === '.git') continue;
    const p = rel + d.name;
    if (tracked.has(p)) continue;
    if (!d.isDirectory()) return true;
    if (fs.existsSync(path.join(dir, p, '.git')) || hasUntracked(dir, `${p}/`, tracked)) return true;
  }
  return false;
}

function isEmptyDirectory(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}
