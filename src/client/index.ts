// The client side of fetching: clone, fetch and ls-remote, orchestration only.
//
// Order of operations (clone.ts and fetch.ts read top to bottom in this order):
//   local-repository-path.ts   clone: a source with no scheme is a path git finds a repository at
//   ../repository/remotes.ts, transport-config.ts   which remote, which URL, which protocol settings
//   partial-clone.ts  the filter asked for (--filter, or the promisor remote's), recorded in the config
//   session.ts        transport.connect -> v2 capabilities or v0 advertisement -> list refs
//   parse-refspec.ts, refspec.ts   refspecs read; remote refs -> local refs (every name checked
//                     before it becomes a path)
//   negotiator.ts     local history offered as haves, newest first (git's consecutive negotiator);
//                     negotiation-algorithm.ts chooses it, skipping-negotiator.ts or none;
//                     negotiation-tips.ts their tips; commit-nodes.ts the commits they walk
//   fetch-pack.ts     wants, have rounds, ACKs -> the pack stream
//   store-pack.ts     the stream straight into index-pack (.keep until refs point at it)
//   shallow-file.ts   the shallow boundary the server sent
//   clone.ts / fetch.ts   refs, HEAD, config, FETCH_HEAD -> checkout (clone)
//   promised-objects.ts, missing-objects.ts   in a partial clone, the trees and blobs a checkout
//                     lacks, fetched from the promisor remote before it
//   junk.ts, interrupt.ts   what a failed or interrupted clone removes
//   submodule/        submodule init, update and status, clone --recurse-submodules
export { clone, type CloneOptions, type CloneResult } from './clone.js';
export { fetch, type FetchOptions, type FetchResult } from './fetch.js';
export { lsRemote, type LsRemoteOptions } from './ls-remote.js';
export { RemoteSession, type RemoteRef, type ListRefsOptions } from './session.js';
export { parseRefspec, type Refspec } from '../refs/refspec.js';
export { mapRefs, type MappedRef } from './refspec.js';
export type { RefLine } from './fetch-report.js';
export {
  cloneRecursive, initSubmodules, submoduleStatus, updateSubmodules,
  type RecurseOptions, type Reporter, type SubmoduleStatusOptions, type SubmoduleUpdateOptions,
} from './submodule/index.js';
