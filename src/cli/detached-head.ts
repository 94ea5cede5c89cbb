// What checkout says about a detached HEAD, in git's words (builtin/checkout.c): the advice on
// detaching it from a branch, and on leaving it, where it was, or the commits only it reached
// (orphaned_commit_warning), which a branch could still keep.
import { fromHex, OID_BYTES, toHex } from '../core/oid.js';
import type { Repository } from '../repository/repository.js';
import { ObjectWalk } from '../walk/object-walk.js';
import type { abbreviator } from './abbrev.js';

type Abbreviate = ReturnType<typeof abbreviator>;

/** git's detached_head_advice. */
export const DETACHED_HEAD_ADVICE = `You are in 'detached HEAD' state. You can look around, make experimental
changes and commit them, and you can discard any commits you make in this
state without impacting any branches by switching back to a branch.

If you want to create a new branch to retain commits you create, you may
do so (now or later) by using -c with the switch command. Example:

  git switch -c <new-branch-name>

Or undo this operation with:

  git switch -

Turn off this advice by setting config variable advice.detachedHead to false
`;

/** git's ORPHAN_CUTOFF: of more commits left behind than this, the rest are counted, not listed. */
const ORPHAN_CUTOFF = 4;

/**
 * What git's orphaned_commit_warning says on leaving the detached HEAD `old` for `now`: where HEAD
 * was, if a ref (of `refList`) or `now` still reaches it, else the commits only it reached (in
 * rev-list's order), which a branch could keep.
 */
export function leavingDetached(repo: Repository, refList: readonly { name: string; oid: string }[], old: Uint8Array, now: Uint8Array,
  abbrev: Abbreviate, advise: boolean): string {
  const walk = new ObjectWalk(repo.odb);
  walk.setShallow(repo.shallowCommits());
  walk.add(old, toHex(old));
  for (const ref of refList) walk.add(fromHex(ref.oid)!, ref.name, true);
  walk.add(now, 'HEAD', true);
  const lost = walk.commits();
  if (lost.length === 0) return described(repo, 'Previous HEAD position was', old, abbrev);
  const keys = walk.ids.keys;
  const orphan = (index: number): string => {
    const id = keys.subarray(index * OID_BYTES, (index + 1) * OID_BYTES);
    return `  ${abbrev(id, 0)} ${oneline(repo.odb.mustRead(id).data)}\n`;
  };
  let list = [...lost.subarray(0, ORPHAN_CUTOFF)].map(orphan).join('');
  const more = lost.length - ORPHAN_CUTOFF;
  if (more === 1) list += orphan(lost[lost.length - 1]!);
  else if (more > 1) list += ` ... and ${more} more.\n`;
  const one = lost.length === 1;
  const warning = `Warning: you are leaving ${lost.length} commit${one ? '' : 's'} behind, not connected to\nany of your branches:\n\n${list}`;
  if (!advise) return warning;
  return `${warning}\nIf you want to keep ${one ? 'it' : 'them'} by creating a new branch, this may be a good time\nto do so with:\n\n git branch <new-branch-name> ${abbrev(old, 0)}\n`;
}

/** git's describe_detached_head: `label`, then the commit abbreviated and its subject. */
export function described(repo: Repository, label: string, commit: Uint8Array, abbrev: Abbreviate): string {
  return `${label} ${abbrev(commit, 0)} ${oneline(repo.odb.mustRead(commit).data)}`;
}

/** A commit's subject as git's oneline format gives it: its message's first paragraph on one line. */
function oneline(data: Uint8Array): string {
  const text = Buffer.from(data).toString('utf8');
  const body = text.indexOf('\n\n');
  if (body < 0) return '';
  const lines = text.slice(body + 2).split('\n').map((l) => l.replace(/[ \t\r]+$/, ''));
  const start = lines.findIndex((l) => l !== '');
  if (start < 0) return '';
  const end = lines.indexOf('', start);
  return lines.slice(start, end < 0 ? undefined : end).join(' ');
}
