// git's --negotiation-tip (builtin/fetch.c add_negotiation_tips): the commits whose history a
// fetch offers as haves, in place of every ref's. A revision names one object, which must be here;
// a pattern with glob characters (under refs/ unless it starts there; `*` crosses slashes, as
// git's wildmatch without flags) names the value of every ref it matches, in ref order.
import { GitError } from '../core/errors.js';
import { toHex } from '../core/oid.js';
import { GLOB_SPECIAL, wildmatch } from '../core/wildmatch.js';
import type { RefStore } from '../refs/index.js';
import type { Repository } from '../repository/repository.js';

/** The tips' ids, hex, in the order given; a pattern matching no ref is warned of through `warn`, as git does. */
export function negotiationTips(repo: Repository, refStore: RefStore, given: readonly string[], warn: (text: string) => void): string[] {
  const oids: string[] = [];
  for (const tip of given) {
    if (!GLOB_SPECIAL.test(tip)) {
      const id = repo.revs().tryResolve(tip);
      if (id === null) throw new GitError('client', 'bad-revision', `${tip} is not a valid object`);
      if (!repo.odb.has(id)) throw new GitError('client', 'missing-object', `the object ${tip} does not exist`);
      oids.push(toHex(id));
      continue;
    }
    const pattern = Buffer.from(tip.startsWith('refs/') ? tip : `refs/${tip}`);
    const before = oids.length;
    for (const ref of refStore.list()) {
      const name = Buffer.from(ref.name);
      if (wildmatch(pattern, 0, pattern.length, name, 0, name.length, 0)) oids.push(ref.oid);
    }
    if (oids.length === before) warn(`warning: ignoring --negotiation-tip=${tip} because it does not match any refs\n`);
  }
  return oids;
}
