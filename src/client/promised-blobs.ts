// Fetching the blobs a partial clone lacks from its promisor remote, in one request, before a
// checkout writes them: clone does it for its checkout, and checkout for what it is about to write
// (git fetches them on demand, through promisor_remote_get_direct, collecting first the files
// check_updates writes). Nothing else is fetched: in a sparse checkout, only blobs of paths inside
// the patterns.
import path from 'node:path';
import type { Config } from '../config/index.js';
import { fromHex, oidEquals } from '../core/oid.js';
import type { Progress } from '../core/progress.js';
import type { FsckOptions } from '../object/fsck.js';
import type { Repository } from '../repository/repository.js';
import { parseRemoteUrl } from '../transport/index.js';
import { indexPath } from '../worktree/checkout.js';
import { entryStage, type IndexEntry } from '../worktree/index-file/entry.js';
import { readIndexFile } from '../worktree/index-file/read.js';
import { isSkipped } from '../worktree/sparse/index-state.js';
import { readSparseCheckout } from '../worktree/sparse/settings.js';
import { fetchPack } from './fetch-pack.js';
import { missingBlobs } from './missing-blobs.js';
import { resolveRemote } from './remote-config.js';
import { RemoteSession } from './session.js';
import { receivedFsck, storePack } from './store-pack.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from './transport-config.js';

export interface BlobFetchOptions {
  readonly progress?: Progress;
  readonly onRemoteProgress?: (text: string) => void;
  readonly signal?: AbortSignal;
}

/** Fetches `blobs` (hex ids) over `session`, in a pack marked as the promisor's, and closes it. */
export async function fetchBlobs(session: RemoteSession, repo: Repository, blobs: readonly string[], fsck: FsckOptions | null,
  options: BlobFetchOptions): Promise<void> {
  if (blobs.length === 0) {
    await session.close();
    return;
  }
  const fetched = await fetchPack(session, {
    wants: [...blobs], negotiator: null, noProgress: !options.onRemoteProgress, onProgress: options.onRemoteProgress,
    receivePack: (pack) => storePack(repo, pack, {
      fixThin: false, fsck, connectivity: false, progress: options.progress,
      promisorRefs: [], signal: options.signal,
    }),
  });
  await session.close(session.version === 2);
  fetched.pack.unlock();
}

/** The remote a partial clone fetches what it lacks from: extensions.partialClone, else the first with promisor = true. */
function promisorRemote(config: Config): string | null {
  const named = config.get('extensions', null, 'partialclone');
  if (named) return named;
  const entry = config.list().find(e => e.section === 'remote' && e.subsection !== null && e.key === 'promisor' &&
    config.getBool('remote', e.subsection, 'promisor'));
  return entry?.subsection ?? null;
}

/**
 * Fetches `blobs` (hex ids) the repository lacks from its promisor remote; nothing when it is no
 * partial clone, or lacks none of them.
 */
export async function fetchPromisedBlobs(repo: Repository, blobs: readonly string[], env: NodeJS.ProcessEnv, cwd: string,
  options: BlobFetchOptions = {}): Promise<void> {
  const wanted = blobs.filter(hex => !repo.odb.has(fromHex(hex)!));
  if (wanted.length === 0) return;
  const config = repo.loadConfig(env);
  const name = promisorRemote(config);
  if (name === null) return;
  const remote = resolveRemote(config, name);
  const url = parseRemoteUrl(remote.url, path.resolve(cwd));
  checkProtocolAllowed(config, env, url);
  const session = await RemoteSession.open(url, { ...connectOptionsFromConfig(config, env), ...remote.uploadPack ? { uploadPack: remote.uploadPack } : {} });
  await fetchBlobs(session, repo, wanted, receivedFsck(config, repo.gitDir, undefined), options);
}

/**
 * Before a checkout of `commitHex` in a partial clone, fetches the blobs it will write that the
 * repository lacks: those of the sparse patterns' paths, less the files the index has with that
 * blob already (written before, so here).
 */
export async function fetchBlobsForCheckout(repo: Repository, commitHex: string, env: NodeJS.ProcessEnv, cwd: string,
  options: BlobFetchOptions = {}): Promise<void> {
  const config = repo.loadConfig(env);
  if (promisorRemote(config) === null) return;
  const sparse = readSparseCheckout(config, repo.gitDir, () => {});
  const present = new Map<string, IndexEntry>();
  for (const e of readIndexFile(indexPath(repo.gitDir, env))?.entries ?? []) {
    if (entryStage(e) === 0 && !isSkipped(e)) present.set(Buffer.from(e.path).toString('latin1'), e);
  }
  const kept = (p: Buffer, oid: Uint8Array): boolean => {
    const e = present.get(p.toString('latin1'));
    return e !== undefined && oidEquals(e.oid, 0, oid, 0);
  };
  await fetchPromisedBlobs(repo, missingBlobs(repo.odb, commitHex, sparse, kept), env, cwd, options);
}
