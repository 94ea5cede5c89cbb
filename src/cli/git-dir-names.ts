// How git names the git directory, and the files in it, in what it prints (`file:.git/config` in
// `config --show-origin`, `error: packfile .git/objects/pack/... does not match index`): setup.c
// keeps the name it found or was given, and makes it absolute (its real path) only where it
// moves away from it. Found: `.git` at the top of the work tree (git moves there), `.` for a bare
// repository it was started in, the real path for one found above a bare repository's
// subdirectory or through a `.git` file. Given ($GIT_DIR, --git-dir): as given, unless it starts
// below the top of the work tree (git moves to the top, so it takes the real path first). With
// $GIT_WORK_TREE, a `.git` found from a subdirectory is taken by its real path, and the rule for
// a given one applies. A linked work tree's common directory is its real path (get_common_dir),
// $GIT_COMMON_DIR as given. core.worktree, which git reads here too, tsgit's discovery does not take.
import path from 'node:path';
import { realPath } from '../config/read.js';
import type { Location } from '../repository/discover.js';

export interface GitDirNames {
  /** The git directory and the common directory as absolute paths (the Location's). */
  gitDirPath: string;
  commonDirPath: string;
  /** The same as git names them. */
  gitDir: string;
  commonDir: string;
}

/** `given`: $GIT_DIR or --git-dir as given, or null when the repository was found from `cwd`. */
export function gitDirNames(loc: Pick<Location, 'gitDir' | 'commonDir' | 'workTree'>, cwd: string, env: NodeJS.ProcessEnv, given: string | null): GitDirNames {
  const here = path.resolve(cwd);
  const workTreeEnv = env.GIT_WORK_TREE ? path.resolve(here, env.GIT_WORK_TREE) : null;
  let gitDir: string;
  if (given !== null) {
    // A gitfile named by $GIT_DIR is read as git reads it, to its real path.
    gitDir = path.resolve(here, given) === loc.gitDir ? given : realPath(loc.gitDir);
  } else if (loc.workTree === null) {
    gitDir = loc.gitDir === here ? '.' : realPath(loc.gitDir);
  } else if (loc.gitDir === path.join(loc.workTree, '.git')) {
    gitDir = workTreeEnv !== null && loc.workTree !== here ? realPath(loc.gitDir) : '.git';
  } else {
    gitDir = realPath(loc.gitDir);
  }
  // Set up from below the top of the work tree, git moves to the top and keeps the real path.
  const workTree = given !== null || workTreeEnv !== null ? workTreeEnv ?? loc.workTree : null;
  if (workTree !== null && isBelow(workTree, here)) gitDir = realPath(loc.gitDir);
  let commonDir = gitDir;
  if (env.GIT_COMMON_DIR) commonDir = env.GIT_COMMON_DIR;
  else if (loc.commonDir !== loc.gitDir) commonDir = realPath(loc.commonDir);
  return { gitDirPath: loc.gitDir, commonDirPath: loc.commonDir, gitDir, commonDir };
}

/** The objects directory as git names it: $GIT_OBJECT_DIRECTORY, else `<common>/objects` as joined by repo_set_gitdir. */
export function shownObjectsDir(names: GitDirNames, env: NodeJS.ProcessEnv): string {
  return env.GIT_OBJECT_DIRECTORY || `${names.commonDir}/objects`;
}

/**
 * `file` (absolute) as git names it: the repository's config as mkpathdup("%s/config") joins it,
 * files beside it likewise (an include is found from the including file's name), config.worktree
 * as git_path joins it (no second slash); then without a leading `./` (cleanup_path). Any other
 * file by its absolute path.
 */
export function shownGitFile(names: GitDirNames, file: string): string {
  const own = path.relative(names.gitDirPath, file);
  if (own === 'config.worktree' || (isWithin(names.gitDirPath, file) && !isWithin(names.commonDirPath, file))) {
    return cleanup(names.gitDir.endsWith('/') ? names.gitDir + own : `${names.gitDir}/${own}`);
  }
  if (isWithin(names.commonDirPath, file)) return cleanup(`${names.commonDir}/${path.relative(names.commonDirPath, file)}`);
  return file;
}

/** git's cleanup_path: `./x` is `x`. */
function cleanup(name: string): string {
  return name.startsWith('./') ? name.slice(2).replace(/^\/+/, '') : name;
}

export function isWithin(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** `dir` strictly inside `top`. */
function isBelow(top: string, dir: string): boolean {
  return path.relative(top, dir) !== '' && isWithin(top, dir);
}
