// The server side: the services (upload-pack; receive-pack plugs in the same way), the worker pool
// that runs them, and the transports that carry them.
//
// Order of operations:
//   transport/           accepting: listen.ts (bind, lingering close), connection-limit.ts (per
//                        address, git daemon's --max-connections), daemon-accept.ts (the git://
//                        request line), http-accept.ts (node:http with the serve timeouts)
//   http.ts / daemon.ts  smart HTTP (node:http handler) and git://: route a request to a service
//                        (services.ts, service.ts), resolve its repository strictly inside the root
//                        (resolve-repository.ts), check it may be served, queue it
//   worker-pool.ts       the bounded FIFO queue and the long-lived workers (worker-process.ts);
//                        a request is a ServiceJob (service-job.ts); HTTP bodies read first
//                        (http-body.ts); one access-log line each (access-log.ts)
//   worker-main.ts       one worker: framed requests (worker-frames.ts) over stdio, a handed-over
//                        git:// socket over IPC, the repositories kept open between requests
//                        (worker-repos.ts, bitmap-cache.ts), the service's advertise() or handle()
//   upload-pack.ts       input limits (limits.ts) -> refs.ts and policy.ts read once -> v0.ts or v2.ts
//   v0.ts / v2.ts        advertisement, wants (wants.ts), shallow.ts, negotiate.ts
//   send-pack.ts         enumerate.ts (walk, filters, include-tag, write order) -> packing/write,
//                        streamed into side-band with git's progress lines (core/progress.ts)
export { uploadPack, protocolVersion, AGENT, type UploadPackRequest } from './upload-pack.js';
export {
  createGitHttpHandler, createUploadPackHandler, type HttpHandlerOptions, type GitHttpHandler, type UploadPackHandler,
  type AuthorizeRequest, type AuthorizeResult,
} from './http.js';
export { createDaemon, parseDaemonRequest, DEFAULT_MAX_CONNECTIONS, type DaemonOptions, type DaemonRequest } from './daemon.js';
export { serve, listRepositories, type ServeOptions, type RunningServer } from './serve.js';
export {
  WorkerPool, Reservation, type WorkerPoolOptions, type WorkerPoolStats, type WorkerInfo,
} from './worker-pool.js';
export { ServiceJob, type JobInput, type ClientConnection } from './service-job.js';
export { type Service, type ServiceCall, type DaemonServiceRule, enabledForDaemon, enabledForHttp } from './service.js';
export { findService, serviceFromWire, SERVICES } from './services.js';
export { DEFAULT_SERVICE_LIMITS, DEFAULT_TIMEOUTS, type ServiceLimits, type ServeTimeouts } from './limits.js';
export { formatAccessLine, type AccessRecord, type AccessOutcome } from './access-log.js';
export { resolveRepository, urlSegments, daemonSegments, type ResolvedRepository } from './resolve-repository.js';
export { enterRepo } from './enter-repo.js';
