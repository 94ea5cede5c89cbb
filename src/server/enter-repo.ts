// Opening the repository a transport names, as git's enter_repo does for upload-pack: the
// directory itself when it is a git directory, else (unless strict) `<dir>/.git`, `<dir>.git/.git`
// or `<dir>.git`.
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { isGitDirectory } from '../repository/discover.js';

const SUFFIXES = ['/.git', '', '.git/.git', '.git'];

/** The git directory `dir` names; throws when there is none. */
export function enterRepo(dir: string, strict: boolean): string {
  const base = path.resolve(dir);
  const candidates = strict ? [base] : SUFFIXES.map(s => base + s);
  for (const c of candidates) if (isGitDirectory(c)) return c;
  throw new GitError('server', 'not-a-repository', `'${dir}' does not appear to be a git repository`);
}
