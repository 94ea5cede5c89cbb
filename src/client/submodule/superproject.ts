// A repository as a superproject: its configuration (global and command line included), its index,
// and its `.gitmodules`, read as git's submodule-config.c reads it (the work tree's file, else the
// index's blob, else HEAD's; none while the file has merge conflicts). From these: which index
// entries are submodules (git's module_list_compute), which are active (is_submodule_active) and
// where each one's repository comes from (its URL, a relative one resolved as git's
// resolve_relative_url).
import fs from 'node:fs';
import path from 'node:path';
import { Config } from '../../config/index.js';
import { GitError, NotFoundError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { MODE_GITLINK } from '../../object/tree.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { Repository } from '../../repository/repository.js';
import { indexPath } from '../../worktree/checkout.js';
import { entryStage, type IndexEntry } from '../../worktree/index-file/entry.js';
import { readIndexFile } from '../../worktree/index-file/read.js';
import { parseGitmodules, type Gitmodules, type Submodule } from './gitmodules.js';
import { parsePathspec } from './pathspec.js';
import { isRelativeUrl, relativeUrl } from './relative-url.js';
import { branchOf } from '../../refs/branch-name.js';

export interface ListedSubmodule {
  /** The gitlink's path, from the top of the work tree. */
  readonly path: string;
  /** The commit the superproject records, hex. */
  readonly oid: string;
  /** Non-zero while the path has merge conflicts. */
  readonly stage: number;
}

export class Superproject {
  private constructor(
    readonly repo: Repository,
    readonly workTree: string,
    readonly config: Config,
    readonly entries: readonly IndexEntry[],
    readonly gitmodules: Gitmodules,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** `warn` gets git's warnings about `.gitmodules` (without "warning: "). */
  static open(repo: Repository, env: NodeJS.ProcessEnv, warn: (message: string) => void): Superproject {
    if (!repo.workTree) throw new GitError('client', 'bare', 'this operation must be run in a work tree');
    const config = repo.loadConfig(env);
    const entries = readIndexFile(indexPath(repo.gitDir, env))?.entries ?? [];
    const gitmodules = readGitmodules(repo, repo.workTree, entries, warn);
    return new Superproject(repo, repo.workTree, config, entries, gitmodules, env);
  }

  /** The superproject's common directory, whose modules/ holds the submodules' repositories. */
  get commonDir(): string {
    return this.repo.commonDir;
  }

  /**
   * The gitlinks of the index that `pathspec` (relative to `prefix`) selects, each once whatever
   * its stages. A pathspec item that matches no index entry at all is an error, as in git.
   */
  list(pathspec: readonly string[], prefix = ''): ListedSubmodule[] {
    const spec = parsePathspec(pathspec, prefix);
    const matched = new Array<boolean>(spec.items.length).fill(false);
    const out: ListedSubmodule[] = [];
    let last: string | null = null;
    for (const e of this.entries) {
      const p = Buffer.from(e.path).toString('utf8');
      if (!spec.matches(p, matched) || e.mode !== MODE_GITLINK || p === last) continue;
      last = p;
      out.push({ path: p, oid: toHex(e.oid), stage: entryStage(e) });
    }
    const missing = spec.items.findIndex((item, i) => !item.exclude && !matched[i]);
    if (missing >= 0) {
      throw new GitError('client', 'no-match', `pathspec '${spec.items[missing]!.original}' did not match any file(s) known to git`);
    }
    return out;
  }

  submodule(p: string): Submodule | null {
    return this.gitmodules.byPath(p);
  }

  /** git's is_submodule_active: submodule.<name>.active, else submodule.active, else a URL in config. */
  isActive(p: string): boolean {
    const sub = this.submodule(p);
    if (!sub) return false;
    const own = this.config.getBool('submodule', sub.name, 'active');
    if (own !== undefined) return own;
    const specs = this.config.getAll('submodule', null, 'active');
    if (specs.length > 0) return parsePathspec(specs).matches(p);
    return this.config.get('submodule', sub.name, 'url') !== undefined;
  }

  defaultRemote(): string {
    return submoduleDefaultRemote(this.repo, this.config);
  }

  /**
   * git's resolve_relative_url: against the default remote's URL as configured (insteadOf is
   * applied later, when it is fetched), else against the work tree itself ("its own
   * authoritative upstream", with git's warning unless `quiet`).
   */
  resolveUrl(url: string, warn: ((message: string) => void) | null): string {
    if (!isRelativeUrl(url)) return url;
    const remote = this.defaultRemote();
    let base = this.config.get('remote', remote, 'url');
    if (base === undefined) {
      warn?.(`could not look up configuration 'remote.${remote}.url'. Assuming this repository is its own authoritative upstream.`);
      base = this.workTree;
    }
    return relativeUrl(base, url);
  }

  /** Where a submodule's repository lives: `<common dir>/modules/<name>`, shared by all work trees. */
  moduleGitDir(name: string): string {
    return path.join(this.commonDir, 'modules', name);
  }
}

/**
 * The remote git 2.39's submodule--helper takes for a repository (its get_default_remote): the
 * current branch's branch.<name>.remote, else origin. Not remote.c's choice, which would take a
 * repository's only remote over origin.
 */
export function submoduleDefaultRemote(repo: Repository, config: Config): string {
  const branch = branchOf(repo.refs.head().symref);
  return (branch !== null ? config.get('branch', branch, 'remote') : undefined) ?? 'origin';
}

/** The work tree's `.gitmodules` (never through a symlink), else the index's, else HEAD's. */
function readGitmodules(repo: Repository, workTree: string, entries: readonly IndexEntry[], warn: (m: string) => void): Gitmodules {
  const none = parseGitmodules(new Uint8Array(0), '.gitmodules', warn);
  const atTop = entries.filter((e) => Buffer.from(e.path).toString('latin1') === '.gitmodules');
  if (atTop.some((e) => entryStage(e) !== 0)) return none;
  const file = path.join(workTree, '.gitmodules');
  let bytes: Uint8Array | null = null;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      bytes = fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new GitError('client', 'unsafe-gitmodules', `${file} is a symbolic link; refusing to read submodule settings through it`);
    if (code !== 'ENOENT') throw new GitError('client', 'io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  if (bytes) return parseGitmodules(bytes, '.gitmodules', warn);
  const staged = atTop[0];
  if (staged) return parseGitmodules(repo.odb.mustRead(staged.oid, 0, OBJ_BLOB).data, ':.gitmodules', warn);
  const id = headGitmodules(repo);
  if (id) return parseGitmodules(repo.odb.mustRead(id, 0, OBJ_BLOB).data, 'HEAD:.gitmodules', warn);
  return none;
}

/** HEAD:.gitmodules, or null when HEAD is unborn or has none. */
function headGitmodules(repo: Repository): Uint8Array | null {
  try {
    return repo.revs().tryResolve('HEAD:.gitmodules');
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}
