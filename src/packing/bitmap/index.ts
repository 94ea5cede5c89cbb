// Reachability bitmaps at work (the format is pack/bitmap). Building: buildPackBitmap() takes every
// commit of a pack, selectBitmapCommits() picks git's commits, PackReachability fills their
// bitsets, and pack/bitmap's writer lays out the file. Using: BitmapWalk answers "reachable from
// these tips and not from those" with a bitmap, as git's prepare_bitmap_walk() does (walk.ts, and
// find-objects.ts for the commits no bitmap covers).
export { selectBitmapCommits, nextCommitGap, type BitmapCandidates } from './select.js';
export { PackReachability, type ReadObject } from './reachability.js';
export { buildPackBitmap, type BuildBitmapOptions } from './build.js';
export { BitmapWalk, type BitmapObjects, type BitmappedPack, type ExtraObject, type ReachableOptions } from './walk.js';
