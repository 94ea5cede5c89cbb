// How git names the objects directory in what it prints about the files there (`error: packfile
// .git/objects/pack/pack-<hash>.pack does not match index`): its setup moves to the top of the work
// tree and keeps the git directory as it found it, `.git` there or `.` for a bare repository it was
// started in; one named by $GIT_DIR or --git-dir stays as given; any other is its absolute path.
import path from 'node:path';
import type { Repository } from '../repository/repository.js';

/** `gitDirArg`: $GIT_DIR or --git-dir as given, or null when the repository was discovered. */
export function shownObjectsDir(repo: Repository, cwd: string, env: NodeJS.ProcessEnv, gitDirArg: string | null): string {
  if (env.GIT_OBJECT_DIRECTORY) return env.GIT_OBJECT_DIRECTORY;
  // A linked work tree's objects are in the common directory, which git reaches by its full path.
  if (repo.commonDir !== repo.gitDir) return `${repo.commonDir}/objects`;
  if (gitDirArg !== null) return `${env.GIT_WORK_TREE ? repo.gitDir : gitDirArg}/objects`;
  if (repo.workTree !== null && repo.gitDir === path.join(repo.workTree, '.git')) return '.git/objects';
  if (repo.workTree === null && repo.gitDir === path.resolve(cwd)) return './objects';
  return `${repo.gitDir}/objects`;
}
