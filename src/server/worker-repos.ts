// The repositories an upload-pack worker keeps open between requests, never stale:
//   - packs: the store's storageStamp() (the listing of objects/pack and the alternates file) is
//     compared on every request; any change (a push that kept its pack, a repack) reopens the
//     repository, so its .idx files, pack list and bitmap (bitmap-cache.ts) are those on disk now;
//   - loose objects: their directory listings are dropped on every request (listing one fan-out
//     directory again is cheap, and a push of a few objects adds only loose ones);
//   - refs: the file store reads loose refs every time and re-parses packed-refs when its stat changes.
import { Repository } from '../repository/repository.js';

interface Open {
  repo: Repository;
  stamp: string;
}

export class WarmRepositories {
  private readonly open = new Map<string, Open>();
  /** Repositories found changed on disk and opened anew since takeReopened() was last called. */
  private reopened = new Set<string>();

  /** The repository at `gitDir`, as it is on disk now. */
  get(gitDir: string): Repository {
    const known = this.open.get(gitDir);
    if (known && known.stamp === known.repo.odb.storageStamp()) {
      known.repo.odb.forgetLooseListings();
      return known.repo;
    }
    if (known) {
      known.repo.close();
      this.reopened.add(gitDir);
    }
    const repo = new Repository(gitDir, null);
    // Stamped before the store looks again, so a pack that lands meanwhile is in the listing or
    // changes the stamp, never neither.
    const stamp = repo.odb.storageStamp();
    repo.odb.refresh();
    this.open.set(gitDir, { repo, stamp });
    return repo;
  }

  has(gitDir: string): boolean {
    return this.open.has(gitDir);
  }

  takeReopened(): string[] {
    const out = [...this.reopened];
    this.reopened.clear();
    return out;
  }

  close(): void {
    for (const { repo } of this.open.values()) repo.close();
    this.open.clear();
  }
}
