// Opening the repository a transport names, as git's enter_repo does for upload-pack: the
// directory itself when it is a git directory, else (unless strict) `<dir>/.git`, `<dir>.git/.git`
// or `<dir>.git`, where a gitfile (a linked work tree's or a submodule's `.git`) leads on to the
// git directory it names.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { isGitDirectory, readGitFile } from '../repository/discover.js';

const SUFFIXES = ['/.git', '', '.git/.git', '.git'];

/** The git directory `dir` (relative to `cwd`) names; throws, naming `dir` as given, when there is none. */
export function enterRepo(dir: string, strict: boolean, cwd = process.cwd()): string {
  const base = path.resolve(cwd, dir);
  if (strict) {
    if (isGitDirectory(base)) return base;
  } else {
    for (const c of SUFFIXES.map((s) => base + s)) {
      let st: fs.Stats;
      try {
        st = fs.statSync(c);
      } catch {
        continue;
      }
      // As git, the first regular file ends the search: it is followed, or nothing is found.
      if (st.isFile()) {
        const target = readGitFile(c);
        if (target !== null && isGitDirectory(target)) return target;
        break;
      }
      if (st.isDirectory() && isGitDirectory(c)) return c;
    }
  }
  throw new GitError('server', 'not-a-repository', `'${dir}' does not appear to be a git repository`);
}
