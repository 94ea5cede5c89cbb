// Every bound a served request runs under, with its default. Where git has the bound, its name and
// default are git's (GIT_HTTP_MAX_REQUEST_BUFFER, git daemon's --timeout, --init-timeout and
// --max-connections); where git has none (wants, haves, rounds, a request's total time, the queue)
// the default is ours, set so that no client git-core makes comes near it.
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../protocol/index.js';

/** What one request may ask of a service: sizes and counts, checked inside the worker. */
export interface ServiceLimits extends RequestLimits {
  /**
   * Bytes a client may send in one request: a buffered HTTP body (after gzip), or what a git://
   * connection sends upload-pack. http-backend's GIT_HTTP_MAX_REQUEST_BUFFER, default 10 MiB.
   */
  maxRequestBytes: number;
  /**
   * Negotiation rounds in one request or connection (v0 flushes, v2 fetch commands). git's client
   * sends 16 haves, then 32 more a round: 100,000 haves take about 3,100 rounds.
   */
  maxRounds: number;
}

export const DEFAULT_SERVICE_LIMITS: Readonly<ServiceLimits> = Object.freeze({
  ...DEFAULT_REQUEST_LIMITS,
  maxRequestBytes: 10 * 1024 * 1024,
  maxRounds: 4096,
});

/** The time bounds of a request, in seconds; 0 turns one off. */
export interface ServeTimeouts {
  /** git daemon --timeout: a client silent while it is waited for, or not reading, this long is dropped. */
  idle: number;
  /**
   * git daemon --init-timeout: from the connection (or the previous answer on a kept-alive one) to
   * the whole request: the git:// request line, or the HTTP headers and a buffered body.
   */
  init: number;
  /** A request's total time once a worker has it (an HTTP request, or a git:// connection). */
  request: number;
}

export const DEFAULT_TIMEOUTS: Readonly<ServeTimeouts> = Object.freeze({ idle: 60, init: 30, request: 3600 });
