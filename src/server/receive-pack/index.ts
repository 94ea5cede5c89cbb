// receive-pack: the server side of a push, transport-neutral (bytes in, bytes out).
//
// Order of operations (receive-pack.ts holds the journey in one place):
//   policy.ts        receive.* settings, hidden refs
//   quarantine.ts    objects/tmp_objdir-incoming-XXXXXX, its hook variables, migration
//   unpack.ts        the pack into the quarantine: index-pack --strict --fix-thin, or loose objects
//   connectivity.ts  the new tips reach only objects that are there; fast-forward checks
//   hooks.ts         pre-receive, update, post-receive, post-update (scripts and functions)
//   update-rules.ts  git's update(): funny names, the current branch, deletions, fast-forwards
//   update-instead.ts  receive.denyCurrentBranch=updateInstead: push-to-checkout, or push_to_deploy
//   refs/store.ts    RefTransaction: the ref updates, all or nothing with `atomic`
//   auto-gc.ts       gc --auto's rule, a background repack
export {
  receivePack, type AuthorizeUpdate, type CommandResult, type ReceivePackLimits, type ReceivePackRequest, type ReceivePackResult,
} from './receive-pack.js';
export type { HookContext, HookVerdict, ReceiveHooks } from './hooks.js';
