// A resolver thread: it receives the shared tables once, resolves the tasks it claims, and answers
// with its --strict reference set (or the error that stopped it). No per-object messages. Before
// that, during the first pass, the first one takes what the parser queues for it: it hashes the
// whole objects and resolves the deltas it can (stream-resolve.ts).
import { parentPort } from 'node:worker_threads';
import { errorData, type ErrorData } from '../../core/errors.js';
import type { ReferenceList } from './check.js';
import { Resolver, type ResolveShared } from './resolve.js';
import { StreamResolver, type StreamRequest } from './stream-resolve.js';
import { keepYoungGenerationSmallInWorker } from '../../core/young-generation.js';
import { runInBackground } from '../../core/background-thread.js';

keepYoungGenerationSmallInWorker();

/** A reference list as it crosses threads: its buffers move. */
export interface SentReferences { ids: ArrayBuffer; types: ArrayBuffer; count: number; gitmodules: Uint8Array }

export interface WorkerReply {
  ok: boolean;
  refs?: SentReferences | null;
  /** For a StreamRequest: the deltas it resolved. */
  resolved?: number;
  error?: ErrorData | null;
}

/**
 * Answers one request with what `work` returns (and the buffers it moves to the caller), or with
 * the error that stopped it.
 */
function answer(work: (transfer: ArrayBuffer[]) => Omit<WorkerReply, 'ok' | 'error'>): void {
  const transfer: ArrayBuffer[] = [];
  let reply: WorkerReply;
  try {
    reply = { ok: true, ...work(transfer) };
  } catch (e) {
    reply = { ok: false, error: errorData(e, 'pack') };
    transfer.length = 0;
  }
  parentPort!.postMessage(reply, transfer);
}

parentPort!.on('message', (message: ResolveShared | StreamRequest) => answer((transfer) => {
  if ('ring' in message) {
    // What this thread does during the first pass, the second would do anyway: it must not slow
    // the parser (or, on the same machine, the server sending the pack). A clone of large from a
    // git daemon on 2 CPUs received 2 s slower with it at the same priority.
    runInBackground();
    const { resolved, refs } = new StreamResolver(message).run();
    return { resolved, refs: send(refs, transfer) };
  }
  const resolver = new Resolver(message);
  resolver.run();
  return { refs: send(resolver.checker?.references() ?? null, transfer) };
}));

/** A reference list to send: the whole buffers move (no copy), and the list is their start. */
function send(refs: ReferenceList | null, transfer: ArrayBuffer[]): SentReferences | null {
  if (!refs) return null;
  const ids = refs.ids.buffer as ArrayBuffer, types = refs.types.buffer as ArrayBuffer;
  transfer.push(ids, types);
  return { ids, types, count: refs.count, gitmodules: refs.gitmodules.slice() };
}
