// tsgit as a library. The layers, bottom up (see ARCHITECTURE.md): ids and errors; objects and their
// validation; the object database; refs and config; the repository that owns them; the walk;
// index-pack, the pack writer and repack; the protocol; the server (upload-pack, the node:http
// handler, git://); the client (clone, fetch, ls-remote); checkout.
export { GitError, CorruptError, NotFoundError, UsageError, type ErrorLayer } from './core/errors.js';
export { fromHex, toHex, isHexOid, OID_BYTES, OID_HEX } from './core/oid.js';
export { progressText, type Progress, type ProgressMeter, type ProgressHint } from './core/progress.js';
export * from './object/index.js';
export { ObjectDatabase } from './odb/database.js';
export type { ObjectInfo, ObjectLocation, ObjectStore, StoredPack } from './odb/object-store.js';
export { DeltaBaseCache, DEFAULT_DELTA_BASE_CACHE_LIMIT } from './odb/delta-base-cache.js';
export { Repository, type RepositoryOptions } from './repository/repository.js';
export { discover, isGitDirectory } from './repository/discover.js';
export {
  FileRefStore, checkRefFormat, type RefEntry, type RefStore, type RefTransaction, type RefUpdateOutcome,
} from './refs/index.js';
export { Config, initialConfigText } from './config/index.js';
export { RevResolver } from './rev/resolve.js';
export { ObjectWalk, type ObjectVisitor } from './walk/object-walk.js';
export { OidMap } from './walk/oid-map.js';
export { indexPack, verifyPack, type IndexPackOptions, type IndexPackResult } from './packing/index-pack/index.js';
export { repack } from './packing/repack/index.js';
export { PackBitmap } from './pack/bitmap/index.js';
export { uploadPack, type UploadPackRequest } from './server/upload-pack.js';
export {
  createGitHttpHandler, createUploadPackHandler, type HttpHandlerOptions, type GitHttpHandler, type UploadPackHandler,
  type AuthorizeRequest, type AuthorizeResult,
} from './server/http.js';
export { createDaemon, type DaemonOptions } from './server/daemon.js';
export { serve, type ServeOptions, type RunningServer } from './server/serve.js';
export { receivePack, type ReceivePackRequest, type ReceivePackResult, type ReceiveHooks } from './server/receive-pack/index.js';
export { push, type PushOptions, type PushResult } from './client/push/push.js';
export { type ServiceLimits, type ServeTimeouts } from './server/limits.js';
export { type AccessRecord } from './server/access-log.js';
export { clone, fetch, lsRemote, type CloneOptions, type FetchOptions } from './client/index.js';
export { INFINITE_DEPTH, NO_DEEPEN, type HistoryShape } from './protocol/index.js';
export { cloneRecursive, submoduleStatus, updateSubmodules, type SubmoduleStatusOptions, type SubmoduleUpdateOptions } from './client/index.js';
export { checkoutTree, type CheckoutOptions } from './worktree/index.js';
