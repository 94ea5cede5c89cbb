// The server side of fetch: upload-pack and the transports that carry it.
//
// Order of operations (upload-pack.ts holds the journey in one place):
//   resolve-repository.ts  a client's path -> a git directory strictly inside the served root
//   http.ts / daemon.ts    smart HTTP (node:http handler) and git:// accept a request, check it,
//                          and hand it to worker-pool.ts's long-lived upload-pack workers
//   worker-main.ts         one worker: framed requests (worker-frames.ts) over stdio, the
//                          repositories kept open between them (worker-repos.ts, bitmap-cache.ts)
//   upload-pack.ts         input limits -> refs.ts and policy.ts read once -> v0.ts or v2.ts
//   v0.ts / v2.ts          advertisement, wants (wants.ts), shallow.ts, negotiate.ts
//   send-pack.ts           enumerate.ts (walk, filters, include-tag, write order) -> packing/write,
//                          streamed into side-band with progress.ts's lines
export { uploadPack, protocolVersion, AGENT, type UploadPackRequest } from './upload-pack.js';
export { createUploadPackHandler, type HttpHandlerOptions, type UploadPackHandler, type AuthorizeRequest, type AuthorizeResult } from './http.js';
export { createDaemon, parseDaemonRequest, type DaemonOptions, type DaemonRequest } from './daemon.js';
export { serve, listRepositories, type ServeOptions, type RunningServer } from './serve.js';
export { WorkerPool, UploadPackJob, type WorkerPoolOptions, type WorkerPoolStats, type WorkerInfo } from './worker-pool.js';
export { resolveRepository, urlSegments, daemonSegments, type ResolvedRepository } from './resolve-repository.js';
export { enterRepo } from './enter-repo.js';
