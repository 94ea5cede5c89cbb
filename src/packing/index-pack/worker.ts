// A resolver thread: it receives the shared tables once, resolves the tasks it claims, and answers
// with its --strict reference set (or the error that stopped it). No per-object messages.
import { parentPort } from 'node:worker_threads';
import { errorData, type ErrorData } from '../../core/errors.js';
import { Resolver, type ResolveShared } from './resolve.js';

export interface WorkerReply {
  ok: boolean;
  refs?: { ids: ArrayBuffer; types: ArrayBuffer; count: number; gitmodules: Uint8Array } | null;
  error?: ErrorData | null;
}

parentPort!.on('message', (shared: ResolveShared) => {
  let reply: WorkerReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const resolver = new Resolver(shared);
    resolver.run();
    const refs = resolver.checker?.references() ?? null;
    if (refs) {
      // The whole buffers move (no copy): the list is their start.
      const ids = refs.ids.buffer as ArrayBuffer, types = refs.types.buffer as ArrayBuffer;
      transfer.push(ids, types);
      reply = { ok: true, refs: { ids, types, count: refs.count, gitmodules: refs.gitmodules.slice() } };
    } else {
      reply = { ok: true, refs: null };
    }
  } catch (e) {
    reply = { ok: false, error: errorData(e, 'pack') };
  }
  parentPort!.postMessage(reply, transfer);
});
