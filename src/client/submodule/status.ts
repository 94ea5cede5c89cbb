// `git submodule status [--cached] [--recursive] [<path>...]` (submodule--helper's
// status_submodule): one line per listed gitlink,
//   `U<zeros> <path>`             the path has merge conflicts
//   `-<recorded> <path>`          not initialized (inactive) or not cloned
//   ` <recorded> <path> (<name>)` the submodule's HEAD is the recorded commit
//   `+<HEAD> <path> (<name>)`     it is another one (the recorded one with --cached)
// where <name> is what git describe calls the commit inside the submodule: by annotated tag, by
// any tag, by a tag that contains it, else by any ref or the abbreviated id (compute_rev_name).
import { GitError } from '../../core/errors.js';
import { fromHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_COMMIT } from '../../object/type.js';
import type { Repository } from '../../repository/repository.js';
import { describe, nameRev } from '../../walk/describe.js';
import { abbrevLength } from '../fetch-report.js';
import { visitSubmodules, type SubmoduleVisitOptions } from './visit.js';

export interface SubmoduleStatusOptions extends SubmoduleVisitOptions {
  /** The recorded commit for `+` lines, instead of the submodule's HEAD. */
  readonly cached?: boolean;
}

export function submoduleStatus(repo: Repository, o: SubmoduleStatusOptions): void {
  const print = (state: string, oid: string, shown: string, name: string | null) => {
    if (!o.quiet) o.report.out(`${state}${oid} ${shown}${name !== null ? ` (${name})` : ''}\n`);
  };
  visitSubmodules(repo, o, ({ sp, entry, shown, gitDir, open, recurse }) => {
    if (!sp.submodule(entry.path)) throw new GitError('client', 'no-mapping', `no submodule mapping found in .gitmodules for path '${entry.path}'`);
    if (entry.stage !== 0) return print('U', ZERO_HEX, shown, null);
    const dir = gitDir();
    if (!sp.isActive(entry.path) || dir === null) return print('-', entry.oid, shown, null);
    open(dir, (subRepo) => {
      const head = subRepo.refs.head().oid;
      if (head === entry.oid) print(' ', entry.oid, shown, revName(subRepo, entry.oid));
      else if (head === null && !o.cached) throw new GitError('client', 'no-head', `could not resolve HEAD ref inside the submodule '${entry.path}'`);
      else {
        const oid = o.cached ? entry.oid : head!;
        print('+', oid, shown, revName(subRepo, oid));
      }
      recurse(subRepo);
    });
  });
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
