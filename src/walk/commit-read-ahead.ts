// Commits walked on a worker thread while this thread lists their trees: for `rev-list --objects`
// over a whole repository, where the commit walk (reading, inflating and parsing every commit) is
// a quarter of the time and needs nothing from the trees. The worker (commit-walk-worker.ts) shows
// commits in the walk's order, each with its root tree, so this thread lists each commit's new
// trees as soon as the commit is known. It only pays where a walk is long and a second core is
// free: the caller decides.
import type { Worker } from 'node:worker_threads';
import type { ObjectDatabase } from '../odb/database.js';
import { COMMIT_WALK_WINDOW_BYTES } from './object-walk.js';
import { startRingWorker, sharedIndexes } from './ring-worker.js';
import { TreeRing, TreeRingReader } from './tree-stream.js';

/** 40,000 commits' records: the worker stays well ahead of a thread that lists trees. */
const RING_BYTES = 2 * 1024 * 1024;

export class CommitReadAhead {
  readonly reader: TreeRingReader;
  private readonly worker: Worker;

  /** `starts`: the walk's starting commits' ids, back to back, as it would take them; `shallow` likewise. */
  constructor(odb: ObjectDatabase, starts: Uint8Array, shallow: Uint8Array) {
    const ring = TreeRing.create(RING_BYTES);
    this.worker = startRingWorker('commit-walk', ring, {
      objectsDir: odb.objectsDir, indexes: sharedIndexes(odb.allPacks()), starts, shallow, windowLimit: COMMIT_WALK_WINDOW_BYTES,
    });
    this.reader = new TreeRingReader(ring, () => {});
  }

  close(): void {
    void this.worker.terminate();
  }
}
