// `git submodule status [--cached] [--recursive] [<path>...]` (submodule--helper's
// status_submodule): one line per listed gitlink,
//   `U<zeros> <path>`             the path has merge conflicts
//   `-<recorded> <path>`          not initialized (inactive) or not cloned
//   ` <recorded> <path> (<name>)` the submodule's HEAD is the recorded commit
//   `+<HEAD> <path> (<name>)`     it is another one (the recorded one with --cached)
// where <name> is what git describe calls the commit inside the submodule: by annotated tag, by
// any tag, by a tag that contains it, else by any ref or the abbreviated id (compute_rev_name).
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { fromHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_COMMIT } from '../../object/type.js';
import { Repository } from '../../repository/repository.js';
import { describe, nameRev } from '../../walk/describe.js';
import { abbrevLength } from '../fetch-report.js';
import type { Reporter } from './init.js';
import { submoduleGitDir, validateSubmodulePath } from './paths.js';
import { Superproject } from './superproject.js';
import { displayPath, submoduleEnv } from './update.js';

/** What the commands that visit the submodules a pathspec selects (status, sync) take. */
export interface SubmoduleVisitOptions {
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

export interface SubmoduleStatusOptions extends SubmoduleVisitOptions {
  /** The recorded commit for `+` lines, instead of the submodule's HEAD. */
  readonly cached?: boolean;
}

export function submoduleStatus(repo: Repository, o: SubmoduleStatusOptions): void {
  const env = o.env ?? process.env;
  const sp = Superproject.open(repo, env, (m) => o.report.err(`warning: ${m}\n`));
  const print = (state: string, oid: string, shown: string, name: string | null) => {
    if (!o.quiet) o.report.out(`${state}${oid} ${shown}${name !== null ? ` (${name})` : ''}\n`);
  };
  for (const entry of sp.list(o.paths ?? [], o.prefix)) {
    validateSubmodulePath(sp.workTree, entry.path);
    if (!sp.submodule(entry.path)) throw new GitError('client', 'no-mapping', `no submodule mapping found in .gitmodules for path '${entry.path}'`);
    const shown = displayPath(entry.path, o.prefix, o.superPrefix);
    if (entry.stage !== 0) {
      print('U', ZERO_HEX, shown, null);
      continue;
    }
    const gitDir = submoduleGitDir(sp.workTree, entry.path);
    if (!sp.isActive(entry.path) || gitDir === null) {
      print('-', entry.oid, shown, null);
      continue;
    }
    const subRepo = new Repository(gitDir, path.join(sp.workTree, entry.path));
    try {
      const head = subRepo.refs.head().oid;
      if (head === entry.oid) print(' ', entry.oid, shown, revName(subRepo, entry.oid));
      else if (head === null && !o.cached) throw new GitError('client', 'no-head', `could not resolve HEAD ref inside the submodule '${entry.path}'`);
      else {
        const oid = o.cached ? entry.oid : head!;
        print('+', oid, shown, revName(subRepo, oid));
      }
      if (o.recursive) {
        submoduleStatus(subRepo, { ...o, paths: [], prefix: '', superPrefix: `${shown}/`, env: submoduleEnv(env) });
      }
    } finally {
      subRepo.close();
    }
  }
}

/** git's compute_rev_name: describe, describe --tags, describe --contains, describe --all --always. */
function revName(repo: Repository, oid: string): string | null {
  const id = fromHex(oid)!;
  if (repo.odb.info(id)?.type !== OBJ_COMMIT) return null;
  const refs = repo.refs.list();
  const abbrev = abbrevLength(repo.odb.packedObjectCount());
  const shallow = repo.shallowCommits();
  return describe(repo.odb, refs, id, { abbrev, shallow })
    ?? describe(repo.odb, refs, id, { tags: true, abbrev, shallow })
    ?? nameRev(repo.odb, refs, id, shallow)
    ?? describe(repo.odb, refs, id, { all: true, always: true, abbrev, shallow });
}
