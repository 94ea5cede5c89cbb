// Fetching what a partial clone lacks from its promisor remote before a checkout writes it: the
// trees first, then the blobs, each in one request. Clone does it for its checkout, and checkout
// for what it is about to write (git fetches them on demand, through promisor_remote_get_direct:
// each tree as unpack_trees meets it, then the blobs check_updates collects). Nothing else is
// fetched: in a sparse checkout, only blobs of paths inside the patterns.
import path from 'node:path';
import type { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import { fromHex, oidEquals } from '../core/oid.js';
import type { Progress } from '../core/progress.js';
import type { FsckOptions } from '../object/fsck.js';
import type { FilterSpec } from '../protocol/index.js';
import type { Repository } from '../repository/repository.js';
import type { SparseMatcher } from '../worktree/sparse/matcher.js';
import { parseRemoteUrl } from '../transport/index.js';
import { indexPath } from '../worktree/checkout.js';
import { entryStage, type IndexEntry } from '../worktree/index-file/entry.js';
import { readIndexFile } from '../worktree/index-file/read.js';
import { isSkipped } from '../worktree/sparse/index-state.js';
import { readSparseCheckout } from '../worktree/sparse/settings.js';
import { fetchPack } from './fetch-pack.js';
import { missingObjects } from './missing-objects.js';
import { promisorRemotes } from './partial-clone.js';
import { remoteGet } from '../repository/remotes.js';
import { RemoteSession } from './session.js';
import { fetchKeepsFrom, receivedFsck, storePack } from './store-pack.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from './transport-config.js';

/** What git's lazy fetch asks with: a tree comes with the trees below it, and no blob. */
const LAZY_FILTER: FilterSpec = { kind: 'blob:none' };

export interface PromisedFetchOptions {
  readonly progress?: Progress;
  readonly onRemoteProgress?: (text: string) => void;
  readonly signal?: AbortSignal;
}

/** How promised objects are fetched: a session to the promisor remote, and the repository's settings. */
export interface PromisorFetch {
  readonly open: () => Promise<RemoteSession>;
  readonly fsck: FsckOptions | null;
  /** fetchKeepsFrom: git's lazy fetch is a `git fetch`, whose .promisor lists the ids it sought from so many objects up. */
  readonly keepsFrom: number;
}

/**
 * Fetches `oids` (hex) into a pack marked as the promisor's, in one request, and fails as git does
 * when one of them did not come.
 */
async function fetchPromised(from: PromisorFetch, repo: Repository, oids: readonly string[], filter: FilterSpec | null,
  options: PromisedFetchOptions): Promise<void> {
  const session = await from.open();
  try {
    const fetched = await fetchPack(session, {
      wants: [...oids], negotiator: null, filter, noProgress: !options.onRemoteProgress, onProgress: options.onRemoteProgress,
      receivePack: (pack) => storePack(repo, pack, {
        fixThin: false, fsck: from.fsck, connectivity: false, progress: options.progress,
        promisor: { refs: oids.map((oid) => ({ name: oid, oid })), listFrom: from.keepsFrom }, signal: options.signal,
      }),
    });
    await session.close(session.version === 2);
    fetched.pack.unlock();
  } catch (e) {
    session.abort();
    throw e;
  }
  const absent = oids.find((oid) => !repo.odb.has(fromHex(oid)!));
  if (absent !== undefined) throw new GitError('client', 'missing-object', `could not fetch ${absent} from promisor remote`);
}

/**
 * Fetches what a checkout of `commitHex` lacks: its missing trees (again while a fetched tree
 * leaves some below it missing), then the blobs missingObjects picks with `sparse` and `kept`.
 */
export async function fetchForCheckout(from: PromisorFetch, repo: Repository, commitHex: string, sparse: SparseMatcher | null,
  kept: ((path: Buffer, oid: Uint8Array) => boolean) | null, options: PromisedFetchOptions): Promise<void> {
  for (;;) {
    const missing = missingObjects(repo.odb, commitHex, sparse, kept);
    if (missing.trees.length > 0) {
      await fetchPromised(from, repo, missing.trees, LAZY_FILTER, options);
      continue;
    }
    if (missing.blobs.length > 0) await fetchPromised(from, repo, missing.blobs, null, options);
    return;
  }
}

/** How to fetch from the repository's promisor remote (the first, as git asks it first); null when it has none. */
function promisorFetch(repo: Repository, config: Config, env: NodeJS.ProcessEnv, cwd: string): PromisorFetch | null {
  const name = promisorRemotes(config)[0];
  if (name === undefined) return null;
  const remote = remoteGet(config, repo.commonDir, name);
  const url = parseRemoteUrl(remote.urls[0]!, path.resolve(cwd));
  checkProtocolAllowed(config, env, url);
  const connect = { ...connectOptionsFromConfig(config, env), ...remote.uploadPack ? { uploadPack: remote.uploadPack } : {} };
  return { open: () => RemoteSession.open(url, connect), fsck: receivedFsck(config, repo.gitDir, undefined), keepsFrom: fetchKeepsFrom(config) };
}

/**
 * Fetches `blobs` (hex ids) the repository lacks from its promisor remote; nothing when it is no
 * partial clone, or lacks none of them.
 */
export async function fetchPromisedBlobs(repo: Repository, blobs: readonly string[], env: NodeJS.ProcessEnv, cwd: string,
  options: PromisedFetchOptions = {}): Promise<void> {
  const wanted = blobs.filter(hex => !repo.odb.has(fromHex(hex)!));
  if (wanted.length === 0) return;
  const from = promisorFetch(repo, repo.loadConfig(env), env, cwd);
  if (from) await fetchPromised(from, repo, wanted, null, options);
}

/**
 * Before a checkout of `commitHex` in a partial clone, fetches the trees and blobs it will read
 * that the repository lacks: blobs of the sparse patterns' paths, less the files the index has
 * with that blob already (written before, so here).
 */
export async function fetchPromisedForCheckout(repo: Repository, commitHex: string, env: NodeJS.ProcessEnv, cwd: string,
  options: PromisedFetchOptions = {}): Promise<void> {
  const config = repo.loadConfig(env);
  const from = promisorFetch(repo, config, env, cwd);
  if (from === null) return;
  const sparse = readSparseCheckout(config, repo.gitDir, () => {});
  const present = new Map<string, IndexEntry>();
  for (const e of readIndexFile(indexPath(repo.gitDir, env))?.entries ?? []) {
    if (entryStage(e) === 0 && !isSkipped(e)) present.set(Buffer.from(e.path).toString('latin1'), e);
  }
  const kept = (p: Buffer, oid: Uint8Array): boolean => {
    const e = present.get(p.toString('latin1'));
    return e !== undefined && oidEquals(e.oid, 0, oid, 0);
  };
  await fetchForCheckout(from, repo, commitHex, sparse, kept, options);
}
