// A checkout writer thread (parallel.ts): opens its own object database as soon as it starts,
// waits for its job, claims chunks of entries until none are left, and answers once with success
// or the error that stopped it.
import { parentPort, workerData } from 'node:worker_threads';
import { GitError } from '../../core/errors.js';
import { ObjectDatabase } from '../../odb/database.js';
import { BlobReader } from './blob-reader.js';
import { FAILED, READY, drain, jobColumns, type WorkerJob, type WorkerReply } from './parallel.js';
import { EntryWriter } from './write-entry.js';

let odb: ObjectDatabase | null = null;
let openError: unknown = null;
try {
  odb = new ObjectDatabase(workerData as string);
} catch (e) {
  openError = e;
}

parentPort!.once('message', (job: WorkerJob) => {
  const control = new Int32Array(job.control);
  let reply: WorkerReply;
  try {
    if (!odb) throw openError;
    const cols = jobColumns(job);
    const writer = new EntryWriter(cols, new Uint32Array(job.stats), null, false);
    const blobs = new BlobReader(odb);
    try {
      drain(blobs, cols, job.codes ? new Uint8Array(job.codes) : null, job.settings, writer, control);
    } finally {
      blobs.close();
    }
    reply = { ok: true };
  } catch (e) {
    Atomics.store(control, FAILED, 1);
    Atomics.notify(control, READY);
    const err = e as Error;
    reply = {
      ok: false,
      error: e instanceof GitError
        ? { message: err.message, code: e.code, layer: e.layer }
        : { message: err.stack ?? String(err), code: 'internal', layer: 'worktree' },
    };
  } finally {
    odb?.close();
  }
  parentPort!.postMessage(reply);
  parentPort!.close();
});
