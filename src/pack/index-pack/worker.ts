// A resolver thread: it receives the shared tables once, resolves the tasks it claims, and answers
// with its --strict reference set (or the error that stopped it). No per-object messages.
import { parentPort } from 'node:worker_threads';
import { GitError } from '../../core/errors.js';
import { Resolver, type ResolveShared } from './resolve.js';

export interface WorkerReply {
  ok: boolean;
  refs?: { ids: ArrayBuffer; types: ArrayBuffer; count: number } | null;
  error?: { message: string; code: string; layer: string } | null;
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
      reply = { ok: true, refs: { ids, types, count: refs.count } };
    } else {
      reply = { ok: true, refs: null };
    }
  } catch (e) {
    const err = e as Error;
    reply = {
      ok: false,
      error: e instanceof GitError
        ? { message: err.message, code: e.code, layer: e.layer }
        : { message: err.stack ?? String(err), code: 'internal', layer: 'pack' },
    };
  }
  parentPort!.postMessage(reply, transfer);
});
