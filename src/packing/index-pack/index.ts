// index-pack, in the order its work happens:
//   window.ts    the bytes of the input not yet parsed
//   parse.ts     pass 1: entries, zlib ends, CRC32s, ids of whole objects, the pack checksum
//   tables.ts    per-object columns in shared memory
//   link.ts      delta bases as object numbers and sorted ids; tasks by subtree size
//   resolve.ts   pass 2, on every thread (threads.ts, worker.ts): deltas from base to children
//   thin.ts      --fix-thin: missing bases appended from the repository
//   check.ts, connectivity.ts   --strict fsck and connectivity; collision checks
//   observe.ts   the hooks told of each header, entry and trailer, and the sink the bytes go to
//   passes.ts    the passes together; index-pack.ts writes .pack/.idx/.rev/.keep; verify.ts
//                compares with an existing .idx
export { indexPack, derive, type IndexPackOptions, type IndexPackResult, type IndexPackTarget } from './index-pack.js';
export { verifyPack, type VerifyPackOptions, type VerifyPackResult } from './verify.js';
export { runPasses, DEFAULT_MAX_DEPTH, type PackInput, type PassOptions, type PassResult } from './passes.js';
export type { ObjectLookup } from './connectivity.js';
export type { PackObserver, PackSink } from './observe.js';
