// A checkout writer thread (parallel.ts): waits for its job, claims chunks of entries until none
// are left, and answers once with success or the error that stopped it. It reads blobs where the
// job says they are, and opens an object database of its own only for what that does not cover
// (loose objects, bases in another pack), so a thread does not hold a copy of every pack index.
import { parentPort, workerData } from 'node:worker_threads';
import { errorData } from '../../core/errors.js';
import { ObjectDatabase } from '../../odb/database.js';
import { BlobReader } from './blob-reader.js';
import { FAILED, READY, drain, jobColumns, type WorkerJob, type WorkerReply } from './parallel.js';
import { EntryWriter } from './write-entry.js';
import { keepYoungGenerationSmallInWorker } from '../../core/young-generation.js';

keepYoungGenerationSmallInWorker();

parentPort!.once('message', (job: WorkerJob) => {
  const control = new Int32Array(job.control);
  let reply: WorkerReply;
  // Set from the reader's callback, so typed by assertion: TypeScript would narrow a plain null.
  let opened = null as ObjectDatabase | null;
  try {
    const cols = jobColumns(job);
    const writer = new EntryWriter(cols, new Uint32Array(job.stats), null, false);
    const locations = { packs: job.packs, packOf: new Int32Array(job.packOf), offsets: new Float64Array(job.offsets) };
    const blobs = new BlobReader(() => opened ??= new ObjectDatabase(workerData as string), locations);
    try {
      drain(blobs, cols, job.codes ? new Uint8Array(job.codes) : null, job.skip ? new Uint8Array(job.skip) : null, job.settings, writer, control);
    } finally {
      blobs.close();
    }
    reply = { ok: true };
  } catch (e) {
    Atomics.store(control, FAILED, 1);
    Atomics.notify(control, READY);
    reply = { ok: false, error: errorData(e, 'worktree') };
  } finally {
    opened?.close();
  }
  parentPort!.postMessage(reply);
  parentPort!.close();
});
