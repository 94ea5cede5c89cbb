// git's update() in receive-pack.c: the rules one ref update must pass before its update hook
// runs and it joins the ref transaction, each refusal with git's message (shown to the client as
// "remote: error: ...") and the reason its report gives.
import { fromHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_COMMIT } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import type { PushCommand } from '../../protocol/index.js';
import { checkRefFormat } from '../../refs/check-ref-format.js';
import { isFastForward } from './connectivity.js';
import type { ReceivePackPolicy } from './policy.js';

export interface UpdateContext {
  readonly policy: ReceivePackPolicy;
  /** The ref HEAD names (protected from deletion even in a bare repository, as git's). */
  readonly headName: string | null;
  /**
   * The branches work trees have checked out: the main one's unless the repository is bare, and
   * every linked one's (repository/linked-worktrees.ts), whichever git directory receives.
   */
  readonly checkedOut: ReadonlySet<string>;
  readonly odb: ObjectStore;
  error(text: string): void;
  warning(text: string): void;
}

/** Whether `c` updates a branch a work tree has checked out under receive.denyCurrentBranch=updateInstead. */
export function updatesWorkTree(ctx: Pick<UpdateContext, 'policy' | 'checkedOut'>, c: PushCommand): boolean {
  return ctx.policy.denyCurrentBranch === 'updateInstead' && ctx.checkedOut.has(c.name);
}

/** Why `c` may not be made, or null. */
export function refusal(ctx: UpdateContext, c: PushCommand): string | null {
  const { name } = c;
  const deleting = c.newOid === ZERO_HEX;
  const policy = ctx.policy;
  if (!name.startsWith('refs/') || checkRefFormat(name.slice(5), { allowOneLevel: deleting }) !== null) {
    ctx.error(`refusing to update funny ref '${name}' remotely`);
    return 'funny refname';
  }
  // A deletion of the checked-out branch meets this rule first, as in git: with the default
  // receive.denyCurrentBranch it is refused here whatever receive.denyDeleteCurrent says.
  if (ctx.checkedOut.has(name)) {
    switch (policy.denyCurrentBranch) {
      case 'ignore': break;
      case 'warn': ctx.warning('updating the current branch'); break;
      case 'updateInstead':
        // The other rules and the update hook speak first; then the work tree is updated
        // (update-instead.ts), and the ref only if that succeeds.
        break;
      default:
        ctx.error(`refusing to update checked out branch: ${name}`);
        if (policy.denyCurrentBranch === 'unconfigured') ctx.error(REFUSE_CURRENT_BRANCH);
        return 'branch is currently checked out';
    }
  }
  if (!deleting && !ctx.odb.has(fromHex(c.newOid)!)) {
    ctx.error(`unpack should have generated ${c.newOid}, but I can't find it!`);
    return 'bad pack';
  }
  if (deleting && c.oldOid !== ZERO_HEX) {
    if (policy.denyDeletes && name.startsWith('refs/heads/')) {
      ctx.error(`denying ref deletion for ${name}`);
      return 'deletion prohibited';
    }
    if (ctx.headName === name || ctx.checkedOut.has(name)) {
      switch (policy.denyDeleteCurrent) {
        case 'ignore': break;
        case 'warn': ctx.warning('deleting the current branch'); break;
        default:
          if (policy.denyDeleteCurrent === 'unconfigured') ctx.error(REFUSE_DELETE_CURRENT);
          ctx.error(`refusing to delete the current branch: ${name}`);
          return 'deletion of the current branch prohibited';
      }
    }
  }
  if (policy.denyNonFastForwards && !deleting && c.oldOid !== ZERO_HEX && name.startsWith('refs/heads/')) {
    const oldId = fromHex(c.oldOid)!, newId = fromHex(c.newOid)!;
    if (ctx.odb.info(oldId)?.type !== OBJ_COMMIT || ctx.odb.info(newId)?.type !== OBJ_COMMIT) {
      ctx.error(`bad sha1 objects for ${name}`);
      return 'bad ref';
    }
    if (!isFastForward(ctx.odb, oldId, newId)) {
      ctx.error(`denying non-fast-forward ${name} (you should pull first)`);
      return 'non-fast-forward';
    }
  }
  return null;
}

/**
 * git's files backend refuses to point a branch (refs/heads/...) at anything but a commit, when the
 * ref transaction is committed (write_ref_to_lockfile), so after the update hook has run; its
 * message, which receive-pack passes on. null when `c` is no such update.
 */
export function nonCommitOnBranch(odb: ObjectStore, c: PushCommand): string | null {
  if (c.newOid === ZERO_HEX || !c.name.startsWith('refs/heads/')) return null;
  if (odb.info(fromHex(c.newOid)!)?.type === OBJ_COMMIT) return null;
  return `cannot update ref '${c.name}': trying to write non-commit object ${c.newOid} to branch '${c.name}'`;
}

const REFUSE_CURRENT_BRANCH = `By default, updating the current branch in a non-bare repository
is denied, because it will make the index and work tree inconsistent
with what you pushed, and will require 'git reset --hard' to match
the work tree to HEAD.

You can set the 'receive.denyCurrentBranch' configuration variable
to 'ignore' or 'warn' in the remote repository to allow pushing into
its current branch; however, this is not recommended unless you
arranged to update its work tree to match what you pushed in some
other way.

To squelch this message and still keep the default behaviour, set
'receive.denyCurrentBranch' configuration variable to 'refuse'.`;

const REFUSE_DELETE_CURRENT = `By default, deleting the current branch is denied, because the next
'git clone' won't result in any file checked out, causing confusion.

You can set 'receive.denyDeleteCurrent' configuration variable to
'warn' or 'ignore' in the remote repository to allow deleting the
current branch, with or without a warning message.

To squelch this message, you can set it to 'refuse'.`;
