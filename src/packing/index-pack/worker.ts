// A resolver thread: it receives the shared tables once, resolves the tasks it claims, and answers
// with its --strict reference set (or the error that stopped it). No per-object messages. Before
// that, during the first pass, the first one hashes the whole objects the parser queues for it.
import { parentPort } from 'node:worker_threads';
import { errorData, type ErrorData } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { consumeHashRing, type HashRingBuffers } from './hash-ring.js';
import { Resolver, type ResolveShared } from './resolve.js';
import { keepYoungGenerationSmallInWorker } from '../../core/young-generation.js';

keepYoungGenerationSmallInWorker();

export interface WorkerReply {
  ok: boolean;
  refs?: { ids: ArrayBuffer; types: ArrayBuffer; count: number; gitmodules: Uint8Array } | null;
  error?: ErrorData | null;
}

/** The first pass's objects to hash (hash-ring.ts), before the shared state of the second. */
export interface HashRequest {
  hash: HashRingBuffers;
  /** The table's ids column: a growable buffer, viewed whole as it grows. */
  ids: SharedArrayBuffer;
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

parentPort!.on('message', (message: ResolveShared | HashRequest) => answer((transfer) => {
  if ('hash' in message) {
    consumeHashRing(message.hash, new Uint8Array(message.ids), sha1);
    return {};
  }
  const resolver = new Resolver(message);
  resolver.run();
  const refs = resolver.checker?.references() ?? null;
  if (!refs) return { refs: null };
  // The whole buffers move (no copy): the list is their start.
  const ids = refs.ids.buffer as ArrayBuffer, types = refs.types.buffer as ArrayBuffer;
  transfer.push(ids, types);
  return { refs: { ids, types, count: refs.count, gitmodules: refs.gitmodules.slice() } };
}));
