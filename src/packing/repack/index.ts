// repack: enumerate.ts walks the refs into git's write order, install.ts writes, indexes and
// renames the new pack, prune.ts removes what it made redundant, repack.ts runs them in order.
export { repack, type RepackOptions, type RepackResult } from './repack.js';
export { enumerateForRepack, type RepackObjects } from './enumerate.js';
export { listPacks, removePacks, removePackedLoose } from './prune.js';
