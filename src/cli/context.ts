// What every command receives: where it runs, its environment, and the repository (opened on first
// use, since some commands such as clone and serve do not start inside one).
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { Repository } from '../repository/repository.js';
import { gitDirNames, shownGitFile, shownObjectsDir, type GitDirNames } from './git-dir-names.js';

export class CommandContext {
  private repo: Repository | null = null;
  private names: GitDirNames | null = null;

  constructor(readonly cwd: string, readonly env: NodeJS.ProcessEnv, readonly gitDir: string | null) {}

  repository(): Repository {
    if (!this.repo) {
      const env = this.gitDir ? { ...this.env, GIT_DIR: path.resolve(this.cwd, this.gitDir) } : this.env;
      this.repo = Repository.discover(this.cwd, env);
      this.repo.warn = (text) => process.stderr.write(text);
      this.names = gitDirNames(this.repo, this.cwd, this.env, this.gitDir);
      this.repo.shownObjectsDir = shownObjectsDir(this.names, this.env);
    }
    return this.repo;
  }

  /** `file` (absolute) as git names it in what it prints: one in the git directory by git's name for that. */
  shownFile(file: string): string {
    this.repository();
    return shownGitFile(this.names!, file);
  }

  /**
   * Where git would be once its setup has found the repository: the top of the work tree, or a
   * bare repository it found (one named by GIT_DIR or --git-dir leaves it where it was). A
   * relative path to a remote, on the command line or in remote.<name>.url, is taken from here.
   */
  setupDir(): string {
    const repo = this.repository();
    if (repo.workTree) return repo.workTree;
    return this.gitDir || this.env.GIT_DIR ? this.cwd : repo.gitDir;
  }

  close(): void {
    this.repo?.close();
  }
}

export type Command = (ctx: CommandContext, args: string[]) => number | Promise<number>;

/** A fatal error as git reports it: "fatal: <message>", exit 128. */
export function fatal(message: string): GitError {
  return new GitError('cli', 'fatal', message);
}
