// upload-pack as a served service (service.ts): on by default over both transports, its HTTP
// body read whole before a worker takes it (as http-backend buffers it), and a worker with
// nothing to do opening a repository as a fetch would find it: its .idx files, its bitmap with
// every entry offset read, its refs, and (for a bitmapped one) a fetch of its own answered and
// thrown away (rehearse.ts), so the first client finds the code compiled and the caches warm.
import type { Repository } from '../repository/repository.js';
import { openBitmap } from './bitmap-cache.js';
import { snapshotRefs } from './refs.js';
import { rehearse } from './rehearse.js';
import type { Service, ServiceCall } from './service.js';
import { uploadPack } from './upload-pack.js';

/**
 * Rehearsals of the first bitmapped repository a worker opens. One fills that repository's caches;
 * V8 compiles the serve path's hot code optimised only after a few runs (served in a loop, a fetch
 * 100 commits behind on the large corpus cost 150, 80, 100, 60 ms, then 25-40), and the compiled
 * code is the process's, so later repositories are rehearsed once.
 */
const JIT_REHEARSALS = 6;
let compiled = false;

function run(call: ServiceCall, advertiseRefs: boolean): Promise<void> {
  return uploadPack(call.repo, {
    input: call.input,
    output: call.output,
    protocol: call.protocol,
    statelessRpc: call.statelessRpc,
    advertiseRefs,
    timeout: call.timeout,
    limits: call.limits,
    signal: call.signal,
    source: call.source,
    counts: call.counts,
  });
}

export const uploadPackService: Service = {
  name: 'upload-pack',
  configKey: 'uploadpack',
  daemonDefault: true,
  httpDefault: true,
  bufferInput: true,
  advertise: call => run(call, true),
  handle: call => run(call, false),
  async warm(repo: Repository): Promise<void> {
    const bitmap = openBitmap(repo);
    const refs = snapshotRefs(repo);
    // A fetch answered by a walk costs too much to rehearse for every worker (750 ms on the large
    // corpus); the bitmapped repositories are the ones served at scale.
    if (!bitmap) return;
    bitmap.layout.readAllOffsets();
    for (let i = compiled ? 1 : JIT_REHEARSALS; i > 0; i--) await rehearse(repo, refs);
    compiled = true;
  },
};
