// Writing a checkout on several threads. This thread creates every directory (and submodule
// directory) in index order, the only thread that ever does, and publishes how far it has got;
// worker threads, each with its own object database, claim chunks of entries from a shared
// counter, wait until their chunk's directories exist, then read, convert and write the files and
// record their stat data in the shared table. When the directories are done this thread claims
// chunks too. Nothing here removes anything, so the directory cache never needs dropping; a file
// already in the way is an error (checkouts that replace things run on one thread). Entries a
// filter smudges are passed by: this thread streams them through their filters
// (write-filtered.ts) once the directories exist, while the workers write the rest.
import { Worker } from 'node:worker_threads';
import { errorFromData, type ErrorData } from '../../core/errors.js';
import { MODE_GITLINK } from '../../object/tree.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { BlobReader, locateBlobs, type PackSource } from './blob-reader.js';
import { DirectoryCache } from './directories.js';
import type { CheckoutPlan, EntryColumns } from './plan.js';
import { EntryWriter } from './write-entry.js';
import { workTreeBytes, writeEntry, type FilterPass, type WriteSettings } from './write-files.js';
import { FilteredWriter } from './write-filtered.js';
import { ownWorker } from '../../core/own-files.js';

/** Control words in a shared Int32Array. */
export const NEXT = 0, READY = 1, DONE = 2, FAILED = 3;
/** Entries claimed at a time: large enough to keep the counter cold, small enough to balance. */
const CHUNK = 64;
/** How often (entries) the directory creator publishes its progress. */
const PUBLISH = 256;

/** Everything a worker needs, in shared memory or small enough to copy. */
export interface WorkerJob {
  dirPaths: (string | Buffer)[];
  count: number;
  paths: SharedArrayBuffer; pathStart: SharedArrayBuffer; nameStart: SharedArrayBuffer; oids: SharedArrayBuffer;
  modes: SharedArrayBuffer; dirOf: SharedArrayBuffer; rawName: SharedArrayBuffer;
  codes: SharedArrayBuffer | null;
  /** 1 for each entry a filter smudges: written by the main thread, not here. */
  skip: SharedArrayBuffer | null;
  /** Where each blob is (see BlobLocations). */
  packs: PackSource[]; packOf: SharedArrayBuffer; offsets: SharedArrayBuffer;
  stats: SharedArrayBuffer;
  control: SharedArrayBuffer;
  settings: WriteSettings;
}

export type WorkerReply = { ok: true } | { ok: false; error: ErrorData };

/** The shared memory under `view` (the plan's columns already live in some), else a copy in some. */
function share(view: Uint8Array | Uint32Array): SharedArrayBuffer {
  if (view.buffer instanceof SharedArrayBuffer && view.byteOffset === 0) return view.buffer;
  const sab = new SharedArrayBuffer(view.byteLength);
  new Uint8Array(sab).set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  return sab;
}

/** The columns of a job, as views of its shared buffers. */
export function jobColumns(job: WorkerJob): EntryColumns {
  return {
    dirs: job.dirPaths.map(fsPath => ({ fsPath })),
    count: job.count,
    paths: Buffer.from(job.paths), pathStart: new Uint32Array(job.pathStart), nameStart: new Uint32Array(job.nameStart),
    oids: Buffer.from(job.oids), modes: new Uint32Array(job.modes), dirOf: new Uint32Array(job.dirOf),
    rawName: new Uint8Array(job.rawName),
  };
}

/**
 * Claims chunks and writes their entries (submodules excepted: the directory creator made them)
 * until none are left or some thread has failed.
 */
export function drain(blobs: BlobReader, cols: EntryColumns, codes: Uint8Array | null, skip: Uint8Array | null,
  settings: WriteSettings, writer: EntryWriter, control: Int32Array, onChunk?: () => void): void {
  for (;;) {
    if (Atomics.load(control, FAILED)) return;
    const start = Atomics.add(control, NEXT, CHUNK);
    if (start >= cols.count) return;
    const end = Math.min(start + CHUNK, cols.count);
    for (;;) {
      const ready = Atomics.load(control, READY);
      if (ready >= end) break;
      if (Atomics.load(control, FAILED)) return;
      Atomics.wait(control, READY, ready, 50);
    }
    let written = 0;
    for (let i = start; i < end; i++) {
      if (cols.modes[i] === MODE_GITLINK || skip?.[i]) continue;
      writeEntry(blobs, cols, codes, settings, writer, i);
      written++;
    }
    Atomics.add(control, DONE, written);
    onChunk?.();
  }
}

/**
 * Writer threads, started early (while the tree is still being planned) so that their start-up
 * and the opening of their object databases overlap the plan; they wait for their job.
 */
export class WriterThreads {
  private readonly workers: Worker[] = [];
  private readonly replies: Promise<WorkerReply>[] = [];

  constructor(count: number, objectsDir: string) {
    for (let t = 0; t < count; t++) {
      const worker = new Worker(ownWorker('checkout-write'), { workerData: objectsDir });
      worker.unref();
      this.workers.push(worker);
      this.replies.push(new Promise<WorkerReply>((resolve) => {
        worker.once('message', resolve);
        worker.once('error', (e: Error) => resolve({ ok: false, error: { message: e.stack ?? e.message, code: 'internal', layer: 'worktree' } }));
        worker.once('exit', (code) => resolve({ ok: false, error: { message: `checkout worker exited with code ${code}`, code: 'internal', layer: 'worktree' } }));
      }));
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /** Hands every thread the job; resolves with their answers once all have finished. */
  run(job: WorkerJob): Promise<WorkerReply[]> {
    for (const w of this.workers) {
      w.ref();
      w.postMessage(job);
    }
    return Promise.all(this.replies);
  }

  /** Stops the threads (for a checkout refused or failed before they ran). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map(w => w.terminate()));
  }
}

/**
 * Writes all of `plan` on this thread and `threads`; stat data goes to the shared `stats`.
 * `unfiltered` counts the entries a filter never delivered (reported).
 */
export async function writeInParallel(odb: ObjectStore, plan: CheckoutPlan, stats: Uint32Array, codes: Uint8Array | null,
  settings: WriteSettings, threads: WriterThreads, progress?: (done: number, total: number) => void,
  filters: FilterPass | null = null): Promise<{ directories: number; unfiltered: number }> {
  if (!(stats.buffer instanceof SharedArrayBuffer)) throw new TypeError('the stat table must be shared');
  const control = new Int32Array(new SharedArrayBuffer(16));
  const locations = locateBlobs(odb, plan.oids, plan.count, i => plan.modes[i] === MODE_GITLINK);
  const skip = filters?.filtered.marks ?? null;
  const job: WorkerJob = {
    dirPaths: plan.dirs.map(d => d.fsPath),
    count: plan.count,
    paths: share(plan.paths), pathStart: share(plan.pathStart), nameStart: share(plan.nameStart), oids: share(plan.oids),
    modes: share(plan.modes), dirOf: share(plan.dirOf), rawName: share(plan.rawName),
    codes: codes ? share(codes) : null,
    skip: skip ? share(skip) : null,
    packs: locations.packs, packOf: locations.packOf.buffer as SharedArrayBuffer, offsets: locations.offsets.buffer as SharedArrayBuffer,
    stats: stats.buffer,
    control: control.buffer as SharedArrayBuffer,
    settings,
  };
  const replies = threads.run(job);
  const report = (): void => progress?.(Atomics.load(control, DONE), plan.count);
  const timer = progress ? setInterval(report, 100) : null;
  let failure: unknown = null;
  let unfiltered = 0;
  const dirs = new DirectoryCache(plan.dirs, false);
  try {
    const writer = new EntryWriter(plan, stats, dirs, false);
    let gitlinks = 0;
    for (let i = 0; i < plan.count; i++) {
      dirs.ensure(plan.dirOf[i]!);
      if (plan.modes[i] === MODE_GITLINK) {
        writer.writeGitlink(i);
        gitlinks++;
      }
      if ((i + 1) % PUBLISH === 0) {
        if (Atomics.load(control, FAILED)) break;
        Atomics.store(control, READY, i + 1);
        Atomics.notify(control, READY);
      }
    }
    Atomics.add(control, DONE, gitlinks);
    Atomics.store(control, READY, plan.count);
    Atomics.notify(control, READY);
    const blobs = new BlobReader(odb, locations);
    try {
      const fileWriter = new EntryWriter(plan, stats, null, false);
      if (filters) unfiltered = await writeFilteredHere(plan, blobs, codes, settings, fileWriter, filters, control);
      drain(blobs, plan, codes, skip, settings, fileWriter, control, report);
    } finally {
      blobs.close();
    }
  } catch (e) {
    failure = e;
    Atomics.store(control, FAILED, 1);
    Atomics.notify(control, READY);
  }
  try {
    const results = await replies;
    if (failure) throw failure;
    const bad = results.find((r): r is Extract<WorkerReply, { ok: false }> => !r.ok);
    if (bad) throw errorFromData(bad.error);
  } finally {
    if (timer) clearInterval(timer);
  }
  report();
  return { directories: dirs.created, unfiltered };
}

/** The filtered entries, in index order, on this thread while the workers write the others. */
async function writeFilteredHere(plan: CheckoutPlan, blobs: BlobReader, codes: Uint8Array | null, settings: WriteSettings,
  writer: EntryWriter, filters: FilterPass, control: Int32Array): Promise<number> {
  const filtering = new FilteredWriter(plan, i => workTreeBytes(blobs, plan, codes, settings, i, true), writer, filters.filtered,
    filters.session, () => Atomics.add(control, DONE, 1));
  for (const i of filters.filtered.driverOf.keys()) {
    if (Atomics.load(control, FAILED)) return 0;
    await filtering.submit(i);
  }
  return filtering.finish();
}
