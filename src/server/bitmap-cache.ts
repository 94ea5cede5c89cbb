// Opening a reachability bitmap (reading its .rev and checking the permutation) costs more than a
// small fetch's whole walk, so a repository kept open between requests (worker-repos.ts) keeps its
// BitmapWalk too, until the set of packs it sees changes.
import { BitmapWalk } from '../pack/bitmap/walk.js';
import type { Repository } from '../repository/repository.js';

const opened = new WeakMap<Repository, { packs: string; walk: BitmapWalk | null }>();

/** The repository's BitmapWalk (null: no usable bitmap), opened again when its packs changed. */
export function bitmapWalk(repo: Repository): BitmapWalk | null {
  const packs = repo.odb.packs.map(p => p.name).sort().join(' ');
  const known = opened.get(repo);
  if (known && known.packs === packs) return known.walk;
  const walk = BitmapWalk.open(repo);
  opened.set(repo, { packs, walk });
  return walk;
}
