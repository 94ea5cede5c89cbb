// Opening a reachability bitmap (reading its .rev and checking the permutation) costs more than a
// small fetch's whole walk, so a repository kept open between requests (worker-repos.ts) keeps its
// BitmapWalk too, until the set of packs it sees changes; and with it the bitmapped pack's
// PackLayout, whose entry offsets (read from the .idx as fetches look them up, then all at once)
// serve every later fetch.
import { DerivedKey } from '../core/derived.js';
import { BitmapWalk } from '../packing/bitmap/walk.js';
import { PackLayout } from '../packing/write/pack-layout.js';
import type { StoredPack } from '../odb/object-store.js';
import type { Repository } from '../repository/repository.js';

export interface OpenBitmap {
  readonly walk: BitmapWalk;
  /** The bitmapped pack in offset order. */
  readonly layout: PackLayout;
}

const OPENED = new DerivedKey<{ packs: ReadonlySet<StoredPack>; bitmap: OpenBitmap | null }>('opened bitmap');

/** The repository's bitmap (null: no usable bitmap), opened again when its packs changed. */
export function openBitmap(repo: Repository): OpenBitmap | null {
  const packs = repo.odb.packs;
  const known = repo.derived.get(OPENED);
  if (known && samePacks(known.packs, packs)) return known.bitmap;
  const walk = BitmapWalk.open(repo);
  const bitmap = walk ? { walk, layout: new PackLayout(walk.pack.handle, walk.pack.order) } : null;
  repo.derived.set(OPENED, { packs: new Set(packs), bitmap });
  return bitmap;
}

/**
 * Whether the object database holds the very pack handles it held, in any order (lookups move the
 * pack that answered to the front; a rescan keeps the handles of packs still there).
 */
function samePacks(known: ReadonlySet<StoredPack>, now: readonly StoredPack[]): boolean {
  return known.size === now.length && now.every(p => known.has(p));
}
