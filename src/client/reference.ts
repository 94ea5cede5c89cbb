// clone --reference <repository>: borrow the objects of a local repository through
// objects/info/alternates, so that only what it lacks is fetched (git's add_one_reference), and
// --dissociate: copy what was borrowed into the clone's own pack and drop the alternates.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { isDirectory } from '../core/is-directory.js';
import { repack } from '../packing/repack/index.js';
import { FileRefStore, type RefStore } from '../refs/index.js';
import { readGitFile } from '../repository/discover.js';
import type { Repository } from '../repository/repository.js';

export interface Reference {
  readonly path: string;
  /** --reference: a repository that is not there is fatal; --reference-if-able: noted and skipped. */
  readonly required: boolean;
}

/**
 * Writes the alternates of `gitDir` for `references` (each resolved from `cwd` as git resolves
 * it: a gitfile, a work tree's .git, or a git directory), refusing a shallow or grafted one as
 * git does. Returns the git directories borrowed from, whose refs the fetch offers as haves.
 */
export function addReferences(gitDir: string, cwd: string, references: readonly Reference[], log: (text: string) => void): string[] {
  const borrowed: string[] = [];
  for (const r of references) {
    const dir = referenceGitDir(path.resolve(cwd, r.path));
    if (dir === null) {
      const why = `reference repository '${r.path}' is not a local repository.`;
      if (r.required) throw new GitError('client', 'bad-reference', why);
      log(`info: Could not add alternate for '${r.path}': ${why}\n`);
      continue;
    }
    if (fs.existsSync(path.join(dir, 'shallow'))) throw new GitError('client', 'bad-reference', `reference repository '${r.path}' is shallow`);
    if (fs.existsSync(path.join(dir, 'info', 'grafts'))) throw new GitError('client', 'bad-reference', `reference repository '${r.path}' is grafted`);
    borrowed.push(dir);
  }
  if (borrowed.length > 0) {
    fs.appendFileSync(path.join(gitDir, 'objects', 'info', 'alternates'), borrowed.map((d) => `${path.join(d, 'objects')}\n`).join(''));
  }
  return borrowed;
}

/** The git directory of a reference: through a gitfile, a work tree's .git, or itself; null when none has objects. */
function referenceGitDir(at: string): string | null {
  let real: string;
  try {
    real = fs.realpathSync(at);
  } catch {
    return null;
  }
  const linked = readGitFile(real) ?? readGitFile(path.join(real, '.git'));
  const dir = linked ?? (isDirectory(path.join(real, '.git', 'objects')) ? path.join(real, '.git') : real);
  return isDirectory(path.join(dir, 'objects')) ? dir : null;
}

/** Every ref tip of the borrowed repositories (git's alternate refs), as hex ids. */
export function referenceTips(borrowed: readonly string[]): string[] {
  return borrowed.flatMap((dir) => new FileRefStore(dir).list().map((r) => r.oid));
}

/** --dissociate: everything reachable into one pack of the clone's own (repack -a -d), then no alternates. */
export async function dissociate(repo: Repository, refs: RefStore): Promise<void> {
  await repack(repo.odb, refs, { deleteRedundant: true });
  fs.rmSync(path.join(repo.gitDir, 'objects', 'info', 'alternates'), { force: true });
}
