// The walk the submodule commands share (submodule--helper's module_list_compute, then one
// function per listed path, with --recursive one `git submodule--helper <command>` inside each
// checked-out submodule): the superproject's gitlinks the pathspec selects, in index order, each
// path vetted before anything looks at it, then the command's own work. What the commands do with
// a path differs (which ones they skip, what is an error, when they look for the repository), so
// that stays with each; the visitor gives them the pieces in the order they ask for them.
import path from 'node:path';
import { Repository } from '../../repository/repository.js';
import type { Reporter } from './init.js';
import { submoduleGitDir, validateSubmodulePath } from './paths.js';
import { Superproject, type ListedSubmodule } from './superproject.js';

/** What the commands that visit the submodules a pathspec selects take. */
export interface SubmoduleVisitOptions {
  /** Pathspecs selecting submodules (relative to `prefix`); none means all. */
  readonly paths?: readonly string[];
  /** Where the command runs, relative to the top of the work tree ('' or ending in '/'). */
  readonly prefix?: string;
  /** The path of this repository in the outermost superproject, for messages ('' or ending in '/'). */
  readonly superPrefix?: string;
  readonly recursive?: boolean;
  readonly quiet?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly report: Reporter;
}

/** One listed gitlink, its path already vetted (validateSubmodulePath). */
export interface VisitedSubmodule {
  readonly sp: Superproject;
  readonly entry: ListedSubmodule;
  /** The path as messages show it (git's displaypath). */
  readonly shown: string;
  /** The submodule's git directory, null while it is not checked out; read only when asked, as a `.git` that is no gitfile is fatal. */
  gitDir(): string | null;
  /** Runs `work` on the submodule's repository, closing it after. */
  open<T>(gitDir: string, work: (sub: Repository) => T): T;
  /** With --recursive, the same visit of `sub`'s own submodules, shown below this one; else nothing. */
  recurse(sub: Repository): void;
}

/** Variables that describe the superproject's repository, which git clears for a submodule's commands. */
const LOCAL_REPO_ENV = [
  'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_CONFIG', 'GIT_OBJECT_DIRECTORY', 'GIT_DIR', 'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE', 'GIT_GRAFT_FILE', 'GIT_INDEX_FILE', 'GIT_NO_REPLACE_OBJECTS', 'GIT_REPLACE_REF_BASE',
  'GIT_PREFIX', 'GIT_SHALLOW_FILE', 'GIT_COMMON_DIR',
];

/** git's prepare_submodule_repo_env, plus the GIT_PROTOCOL_FROM_USER=0 git-submodule.sh exports. */
export function submoduleEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, GIT_PROTOCOL_FROM_USER: '0' };
  for (const name of LOCAL_REPO_ENV) delete out[name];
  return out;
}

/** git's get_submodule_displaypath. */
export function displayPath(p: string, prefix = '', superPrefix = ''): string {
  if (prefix) return path.posix.relative(prefix.replace(/\/$/, ''), p) || './';
  return superPrefix + p;
}

/** `repo` as a superproject (its `.gitmodules` warnings reported) and the gitlinks `o.paths` selects. */
export function listSubmodules(repo: Repository, o: SubmoduleVisitOptions): { sp: Superproject; list: ListedSubmodule[] } {
  const sp = Superproject.open(repo, o.env ?? process.env, (m) => o.report.err(`warning: ${m}\n`));
  return { sp, list: sp.list(o.paths ?? [], o.prefix) };
}

/** `o` for the same command inside the submodule shown as `shown`: all its submodules, shown below it. */
export function nestedOptions<O extends SubmoduleVisitOptions>(o: O, shown: string): O {
  return { ...o, paths: [], prefix: '', superPrefix: `${shown}/`, env: submoduleEnv(o.env ?? process.env) };
}

/** Calls `each` for every gitlink `o` selects in `repo`, in index order. */
export function visitSubmodules(repo: Repository, o: SubmoduleVisitOptions, each: (v: VisitedSubmodule) => void): void {
  const { sp, list } = listSubmodules(repo, o);
  for (const entry of list) each(visited(sp, entry, o, each));
}

/** The listed gitlink `entry` of `sp`, its path vetted; `each` is what `recurse` calls on nested submodules (none: no recursion). */
export function visited(sp: Superproject, entry: ListedSubmodule, o: SubmoduleVisitOptions, each?: (v: VisitedSubmodule) => void): VisitedSubmodule {
  validateSubmodulePath(sp.workTree, entry.path);
  const shown = displayPath(entry.path, o.prefix, o.superPrefix);
  return {
    sp, entry, shown,
    gitDir: () => submoduleGitDir(sp.workTree, entry.path),
    open: (gitDir, work) => {
      const sub = new Repository(gitDir, path.join(sp.workTree, entry.path));
      try {
        return work(sub);
      } finally {
        sub.close();
      }
    },
    recurse: (sub) => {
      if (o.recursive && each) visitSubmodules(sub, nestedOptions(o, shown), each);
    },
  };
}
