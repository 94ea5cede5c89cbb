// Whether a clone's source that names no scheme (no ':') is something git's clone would take: git's
// get_repo_path looks for a git directory at <path>/.git, <path>, <path>.git/.git and <path>.git,
// a file there (a gitfile, which the transport then follows), or a bundle at <path>.bundle or
// <path>; with none of them it stops before anything is made, saying the repository does not
// exist, instead of leaving the far end to fail.
import fs from 'node:fs';
import { isGitDirectory } from '../repository/discover.js';

const SUFFIXES = ['/.git', '', '.git/.git', '.git', '.bundle'];

export function localRepositoryFound(absolute: string): boolean {
  return SUFFIXES.some((suffix) => {
    const candidate = absolute + suffix;
    let st: fs.Stats;
    try {
      st = fs.statSync(candidate);
    } catch {
      return false;
    }
    return st.isDirectory() ? suffix !== '.bundle' && isGitDirectory(candidate) : st.isFile();
  });
}
