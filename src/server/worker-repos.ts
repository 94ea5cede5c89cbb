// The repositories an upload-pack worker keeps open between requests, never stale:
//   - packs: the listing of objects/pack (and the alternates file) is compared on every request;
//     any change (a push that kept its pack, a repack) reopens the repository, so its .idx files,
//     pack list and bitmap (bitmap-cache.ts) are those on disk now;
//   - loose objects: their directory listings are dropped on every request (listing one fan-out
//     directory again is cheap, and a push of a few objects adds only loose ones);
//   - refs: RefStore reads loose refs every time and re-parses packed-refs when its stat changes.
import fs from 'node:fs';
import path from 'node:path';
import type { ObjectDatabase } from '../odb/database.js';
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
    const stamp = packStamp(gitDir);
    const known = this.open.get(gitDir);
    if (known && known.stamp === stamp) {
      forgetLoose(known.repo.odb);
      return known.repo;
    }
    if (known) {
      known.repo.close();
      this.reopened.add(gitDir);
    }
    const repo = new Repository(gitDir, null);
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

/** Names in objects/pack with their sizes and mtimes, and the alternates file's, as one string. */
function packStamp(gitDir: string): string {
  const objects = path.join(gitDir, 'objects');
  const parts: string[] = [];
  const add = (file: string, name: string) => {
    try {
      const st = fs.statSync(file);
      parts.push(`${name}:${st.ino}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${name}:-`);
    }
  };
  add(path.join(objects, 'info', 'alternates'), 'alternates');
  let names: string[] = [];
  try {
    names = fs.readdirSync(path.join(objects, 'pack')).sort();
  } catch {
    // No pack directory: an empty listing, until one appears.
  }
  for (const n of names) {
    if (n.endsWith('.pack') || n.endsWith('.idx') || n.endsWith('.bitmap') || n.endsWith('.rev')) add(path.join(objects, 'pack', n), n);
  }
  return parts.join('\n');
}

function forgetLoose(odb: ObjectDatabase): void {
  odb.loose.refresh();
  for (const alt of odb.alternates) forgetLoose(alt);
}
