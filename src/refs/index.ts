// References. A name is checked first (check-ref-format.ts: git's rules, and checkRefPath for
// names that become paths), then looked up as a loose file (loose.ts) before packed-refs
// (packed.ts, parsed once per file version). store.ts's RefStore follows symbolic refs, lists refs
// by merging both sorted sources, and writes through lock files (lock.ts): check the old value
// under the lock, write the reflog (reflog.ts), rename the lock into place.
export { checkRefFormat, checkRefPath, type CheckRefFormatOptions } from './check-ref-format.js';
export { type RawRef } from './loose.js';
export { isSafeRefName, PACKED_REFS_HEADER } from './packed.js';
export { committerIdent, type LogAllRefUpdates } from './reflog.js';
export { compareRefNames } from './sort.js';
export {
  RefStore, type DeleteOptions, type HeadState, type PackedRefInput, type RefEntry, type RefStoreOptions,
  type ResolvedRef, type UpdateOptions,
} from './store.js';
