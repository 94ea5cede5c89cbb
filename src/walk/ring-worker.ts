// Starting a worker that answers through a ring of records in shared memory (tree-stream.ts): the
// tree reader (tree-read-ahead.ts) and the commit walker (commit-read-ahead.ts).
//
// The main thread waits on the ring, not on events, so it could not hear of the worker's end: a
// small bootstrap marks the ring when the worker exits, whatever the reason (a module that fails to
// load included), and the reader then fails instead of waiting forever.
import { Worker, type TransferListItem } from 'node:worker_threads';
import { ownWorker } from '../core/own-files.js';
import { PackIndex } from '../pack/idx/read.js';
import { EXITED, WRITE, type TreeRing } from './tree-stream.js';

/**
 * Starts the worker `name` (dist/src/tsgit-worker-<name>.js, bundled from walk/<name>-worker.ts by
 * scripts/bundle.mjs: the walk waits for its start); `data`, with the ring's buffers added, is its
 * workerData.
 */
export function startRingWorker(name: 'commit-walk' | 'tree-walk', ring: TreeRing, data: Record<string, unknown>, transferList: TransferListItem[] = []): Worker {
  const url = ownWorker(name).href;
  const worker = new Worker(`
    const { workerData } = require('node:worker_threads');
    const exited = () => {
      const c = new Int32Array(workerData.controlBuffer);
      Atomics.store(c, ${EXITED}, 1);
      Atomics.notify(c, ${WRITE});
    };
    process.on('exit', exited);
    import(${JSON.stringify(url)}).catch(e => { process.stderr.write(String(e && e.stack || e) + '\\n'); exited(); });
  `, {
    eval: true,
    workerData: { ...data, ringBuffer: ring.ringBuffer, controlBuffer: ring.controlBuffer },
    transferList,
    // Flags such as --input-type apply to the main script, not to this one.
    execArgv: process.execArgv.filter(a => !a.startsWith('--input-type')),
  });
  // The walk never waits on the event loop; the worker must not keep the process alive.
  worker.unref();
  worker.on('error', () => { /* the reader fails on the EXITED mark */ });
  return worker;
}

/** The packs' indexes, read whole (the worker reads their buffers without asking for pages), by path. */
export function sharedIndexes(packs: readonly { index: { path: string; buf: Buffer; loadAll(): void } }[]): SharedIndexes {
  return packs.map((p) => {
    p.index.loadAll();
    return [p.index.path, p.index.buf];
  });
}

/** Index files' bytes by path, in the shared memory the main thread read them into. */
export type SharedIndexes = [string, Uint8Array][];

/** The worker's side of sharedIndexes: its object database opens these instead of reading the files. */
export function adoptSharedIndexes(indexes: SharedIndexes): void {
  for (const [path, bytes] of indexes) PackIndex.shared.set(path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
