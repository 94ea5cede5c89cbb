// Submodules, as git-submodule(1) handles them, in the order a recursive clone meets the pieces:
//   gitmodules.ts      `.gitmodules`, with the names, paths and URLs git ignores left out
//   superproject.ts    the index's gitlinks, `.gitmodules`, which are active, where each comes from
//   relative-url.ts    `../x.git` against the superproject's remote (git's relative_url)
//   pathspec.ts        the paths commands are given, and submodule.active
//   init.ts            URLs, active and update settings into the superproject's config
//   visit.ts           the walk status, sync and foreach share, and the listing update starts with
//   update.ts          clone what is missing (paths.ts vets where), fetch by id, check out, recurse
//   checkout.ts        the submodule's side: reachability of the commit, detached checkout
//   status.ts          the status lines, named by walk/describe.ts
//   sync.ts, foreach.ts URLs from .gitmodules again; a command in each checked-out submodule
//   edit-gitmodules.ts set-url and set-branch: .gitmodules written, set-url's URL synced
//   absorb.ts          .git directories in work trees moved into .git/modules, nested ones too
//   deinit.ts          work trees emptied (removal-check.ts: what git rm refuses), config unset
//   clone-recursive.ts clone --recurse-submodules
export { cloneRecursive, type RecurseOptions } from './clone-recursive.js';
export { initSubmodules, type Reporter } from './init.js';
export { submoduleStatus, type SubmoduleStatusOptions } from './status.js';
export { Superproject, type ListedSubmodule } from './superproject.js';
export { updateSubmodules, type SubmoduleUpdateOptions } from './update.js';
