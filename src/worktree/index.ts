// The work tree and its index. A checkout goes:
//   checkout/plan.ts         walk the tree, vet every name (object/path-names.ts), mode, order and
//                            duplicate, lay the entries out as columns, build the cache-tree
//   checkout/conversions.ts  attributes (attributes/*) from the tree and $GIT_DIR/info, decide
//                            each file's eol/ident conversion (convert.ts) and filter driver
//                            (filter/driver.ts)
//   checkout.ts              refuse a non-empty target, take index.lock, then write
//   checkout/write-files.ts  one thread: directories once each (checkout/directories.ts), files
//   checkout/parallel.ts     or several: directories on the calling thread, files on all
//                            (checkout/write-worker.ts), stat data into a shared table
//   checkout/write-filtered.ts  filtered files on the calling thread, through filter/ (smudge
//                            commands, the long-running process protocol, delayed files)
//   index-file/write.ts      the index from the plan and the stat table, through the lock
// switch.ts moves an existing work tree from one commit to another with git's two-way rules.
// encoding.ts is working-tree-encoding (UTF-16/32 in process, code pages as tables read out of the
// system's iconv, code-page.ts, other names through iconv.ts); ident-stream.ts is git's streaming
// ident filter; to-git.ts reads work-tree files back as git would store them (switch's checks).
export { checkoutTree, indexPath, type CheckoutOptions, type CheckoutResult } from './checkout.js';
export { switchTree, type SwitchOptions, type SwitchResult } from './switch.js';
export {
  CE_EXTENDED, CE_INTENT_TO_ADD, CE_SKIP_WORKTREE, CE_STAGE_MASK, CE_VALID, compareEntries, emptyIndex, entryStage,
  type CacheTreeNode, type IndexEntry, type IndexExtension, type IndexFile,
} from './index-file/entry.js';
export { parseCacheTree, parseIndex, readIndexFile } from './index-file/read.js';
export { IndexLock, serializeCacheTree, serializeIndex, smudgeRacyEntries, writeIndexFile } from './index-file/write.js';
export { AttributeChecker, type AttrFrame, type AttributeSources } from './attributes/check.js';
export { parseAttributes, type AttrValue } from './attributes/rules.js';
export { convertToWorkTree, conversionFor, type Conversion, type EolSettings } from './convert.js';
