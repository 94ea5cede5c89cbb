// References. store.ts says what the layers above may ask of refs (RefStore, RefTransaction);
// file-store.ts's FileRefStore keeps them as git's files backend does. A name is checked first
// (check-ref-format.ts: git's rules, and checkRefPath for names that become paths), then looked up
// as a loose file (loose.ts) before packed-refs (packed.ts, parsed once per file version).
// FileRefStore follows symbolic refs, lists refs by merging both sorted sources, and writes
// through lock files (core/lock-file.ts): check the old value under the lock, write the reflog
// (reflog.ts), rename the lock into place; file-transaction.ts does that for several refs at once.
export { checkRefFormat, checkRefPath, type CheckRefFormatOptions } from './check-ref-format.js';
export { FileRefStore, type FileRefStoreOptions } from './file-store.js';
export { isSafeRefName, PACKED_REFS_HEADER } from './packed.js';
export { committerIdent, reflogAction, type LogAllRefUpdates } from './reflog.js';
export { compareRefNames } from './sort.js';
export type {
  DeleteOptions, HeadState, InitialRef, ListOptions, RawRef, RefEntry, RefStore, RefTransaction, RefUpdateOutcome,
  ResolvedRef, UpdateOptions,
} from './store.js';
