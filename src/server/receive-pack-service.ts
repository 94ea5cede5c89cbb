// receive-pack as a served service (service.ts): off over git:// unless daemon.receivepack or
// --enable=receive-pack, over HTTP only for an authenticated user unless http.receivepack says
// (git http-backend's rule), and its HTTP body streamed to the worker rather than held, since it
// is the pack. The worker's warm Repository takes the push, each ref update put to the
// transport's authorize when it has one; the workers that serve fetches see its refs and pack on
// their next request (they re-check both on every one).
import path from 'node:path';
import { receivePack } from './receive-pack/index.js';
import { removeAbandoned } from './receive-pack/quarantine.js';
import type { Service, ServiceCall } from './service.js';

async function run(call: ServiceCall, advertiseRefs: boolean): Promise<void> {
  const result = await receivePack(call.repo, {
    input: call.input,
    output: call.output,
    protocol: call.protocol,
    statelessRpc: call.statelessRpc,
    advertiseRefs,
    limits: { timeout: call.timeout, request: call.limits },
    ...(call.signal ? { signal: call.signal } : {}),
    ...(call.authorize ? { authorize: call.authorize } : {}),
    source: call.source,
  });
  call.counts.commands = result.commands.length;
  call.counts.refused = result.commands.filter(c => c.error !== null).length;
}

export const receivePackService: Service = {
  name: 'receive-pack',
  configKey: 'receivepack',
  daemonDefault: false,
  httpDefault: 'authenticated',
  bufferInput: false,
  advertise: call => run(call, true),
  handle: call => run(call, false),
  // A worker killed mid-push (its client gone, kill -9) leaves its quarantine.
  abandoned: (gitDir, pid) => removeAbandoned(path.join(gitDir, 'objects'), pid),
};
