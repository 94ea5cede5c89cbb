// Where `tsgit config` reads and writes: the repository it runs in (if any), the file its
// location options name (--global, --system, --local, --worktree, -f, $GIT_CONFIG) and the names
// git gives files in messages and --show-origin: the repository's through the git directory's
// name (git-dir-names.ts: ".git/config", "config" in a bare repository), a relative `-f <file>`
// from the top, through the subdirectory it was run in ("sub/../x").
import path from 'node:path';
import { type ConfigScope } from '../config/index.js';
import { globalFileTarget, systemFileTarget } from '../config/read.js';
import { GitError } from '../core/errors.js';
import { discover, type Location } from '../repository/discover.js';
import { allWorktrees } from '../repository/linked-worktrees.js';
import type { Repository } from '../repository/repository.js';
import { fatal, type CommandContext } from './context.js';
import { gitDirNames, isWithin, shownGitFile, type GitDirNames } from './git-dir-names.js';

export interface Locations {
  global: boolean;
  system: boolean;
  local: boolean;
  worktree: boolean;
  /** -f/--file, else $GIT_CONFIG ("-": standard input). */
  file: string | null;
  /** --blob */
  blob: string | null;
}

/** The one source a location option names; none (null) means git's whole sequence of files. */
export type Source =
  | { kind: 'file'; path: string; scope: ConfigScope }
  | { kind: 'stdin' }
  | { kind: 'blob'; name: string };

export class ConfigSetup {
  private constructor(readonly repo: Repository | null, private readonly ctx: CommandContext,
    /** The git directory, as git names it too; null outside a repository. */
    private readonly names: GitDirNames | null,
    /** The directory run in, relative to the top of the work tree, with a '/' ('' at the top). */
    private readonly prefix: string) {}

  /**
   * The setup for a command run in `ctx`. The repository is found before it is opened (which
   * reads its config), so that an error in its files names them as git does (see renamed).
   */
  static open(ctx: CommandContext): ConfigSetup {
    const given = ctx.gitDir ?? ctx.env.GIT_DIR ?? null;
    let loc: Location;
    try {
      loc = discover(ctx.cwd, given ? { ...ctx.env, GIT_DIR: path.resolve(ctx.cwd, given) } : ctx.env);
    } catch (e) {
      if (e instanceof GitError && e.code === 'not-a-repository') return new ConfigSetup(null, ctx, null, '');
      throw e;
    }
    const prefix = loc.workTree && isWithin(loc.workTree, ctx.cwd) ? withSlash(path.relative(loc.workTree, ctx.cwd)) : '';
    const names = gitDirNames(loc, ctx.cwd, ctx.env, given || null);
    const named = new ConfigSetup(null, ctx, names, prefix);
    try {
      return new ConfigSetup(ctx.repository(), ctx, names, prefix);
    } catch (e) {
      throw named.renamed(e);
    }
  }

  /** `e` with the absolute path of a file in the repository named as git names it. */
  renamed(e: unknown): unknown {
    if (!(e instanceof GitError)) return e;
    const m = / in file (\/.*?)(?=:| line |$)/.exec(e.message);
    if (!m || this.shown(m[1]!) === m[1]) return e;
    const message = e.message.slice(0, m.index) + ` in file ${this.shown(m[1]!)}` + e.message.slice(m.index + m[0].length);
    return new GitError(e.layer, e.code, message, { cause: e });
  }

  /** Where the command was run. */
  get cwd(): string {
    return this.ctx.cwd;
  }

  /** `file` (absolute) as git names it. */
  shown(file: string): string {
    return this.names ? shownGitFile(this.names, file) : file;
  }

  /** The source the location options name, null for git's sequence; dies where git does. */
  source(loc: Locations): Source | null {
    const env = this.ctx.env;
    if (!this.repo) {
      if (loc.local) throw fatal('--local can only be used inside a git repository');
      if (loc.blob !== null) throw fatal('--blob can only be used inside a git repository');
      if (loc.worktree) throw fatal('--worktree can only be used inside a git repository');
    }
    if (loc.file === '-') return { kind: 'stdin' };
    if (loc.global) {
      const file = globalFileTarget(env);
      if (file === null) throw fatal('$HOME not set');
      return { kind: 'file', path: path.resolve(this.ctx.cwd, file), scope: 'global' };
    }
    if (loc.system) return { kind: 'file', path: path.resolve(this.ctx.cwd, systemFileTarget(env)), scope: 'system' };
    const repo = this.repo;
    if (loc.local) return { kind: 'file', path: repo!.config.path, scope: 'local' };
    if (loc.worktree) {
      if (repo!.config.getBool('extensions', null, 'worktreeconfig')) {
        return { kind: 'file', path: path.join(repo!.gitDir, 'config.worktree'), scope: 'local' };
      }
      if (allWorktrees(repo!.commonDir, null).length > 0) {
        throw fatal('--worktree cannot be used with multiple working trees unless the config\n'
          + 'extension worktreeConfig is enabled. Please read "CONFIGURATION FILE"\n'
          + 'section in "git help worktree" for details');
      }
      return { kind: 'file', path: repo!.config.path, scope: 'local' };
    }
    if (loc.file !== null) return { kind: 'file', path: path.resolve(this.ctx.cwd, loc.file), scope: 'command' };
    if (loc.blob !== null) return { kind: 'blob', name: loc.blob };
    return null;
  }

  /** How git names the file of `source` (a relative -f from the top, through the prefix). */
  shownSource(source: Source, loc: Locations): string {
    if (source.kind !== 'file') return '';
    if (source.scope === 'command' && loc.file !== null && !path.isAbsolute(loc.file)) return this.prefix + loc.file;
    return this.shown(source.path);
  }

  /** The file a write without a location option goes to: the repository's config. */
  localFile(): string {
    if (!this.repo) throw fatal('not in a git directory');
    return this.repo.config.path;
  }
}

function withSlash(rel: string): string {
  return rel === '' ? '' : `${rel}/`;
}
