// A service the server runs for a client (git-upload-pack; git-receive-pack plugs in the same way):
// what the transports need to know of it (its name, whether a request may use it, how its HTTP
// body is read) and what a worker runs for it (the info/refs advertisement, a request, and the
// warming of a repository before any request). The transports and the worker pool know services
// only through this; services.ts lists them.
import type { Config } from '../config/index.js';
import type { Repository } from '../repository/repository.js';
import type { ServiceLimits } from './limits.js';
import type { AuthorizeUpdate } from './receive-pack/index.js';

/** Where a service's bytes go; a returned promise means "wait before writing more". */
export type ResponseSink = (data: Buffer) => void | Promise<void>;

/** One request as a worker runs it. */
export interface ServiceCall {
  readonly repo: Repository;
  /** The client's bytes: an HTTP body, or a git:// connection's after its request line. */
  readonly input: AsyncIterable<Uint8Array>;
  readonly output: ResponseSink;
  /** GIT_PROTOCOL's value: the Git-Protocol header, or git://'s extra parameters. */
  readonly protocol: string | undefined;
  /** One request, one answer (smart HTTP), rather than a conversation (git://). */
  readonly statelessRpc: boolean;
  /** Seconds without client input before giving up; 0 waits forever. */
  readonly timeout: number;
  readonly limits: ServiceLimits;
  /** Aborted when the client is gone. */
  readonly signal: AbortSignal | undefined;
  /** Names the input in error messages. */
  readonly source: string;
  /** What the access log shows of the request (upload-pack: wants, haves); the service counts. */
  readonly counts: Record<string, number>;
  /** The transport's verdict on each ref update (the HTTP handler's authorize); absent: none is asked. */
  readonly authorize?: AuthorizeUpdate;
}

export interface Service {
  /** git's name: 'upload-pack'. The wire, URLs and content types say `git-<name>`. */
  readonly name: string;
  /** The key of daemon.<key> and http.<key>, which enable it per repository: 'uploadpack'. */
  readonly configKey: string;
  /** Served over git:// when daemon.<key> is unset (git daemon: upload-pack yes, receive-pack no). */
  readonly daemonDefault: boolean;
  /**
   * Served over HTTP when http.<key> is unset: yes, no, or only to an authenticated user
   * (http-backend's rule for receive-pack: REMOTE_USER set).
   */
  readonly httpDefault: boolean | 'authenticated';
  /**
   * The HTTP body is read whole (bounded) before a worker takes the request, so that a slow
   * client holds no worker (http-backend buffers upload-pack's input); otherwise it is streamed to
   * the worker (receive-pack's pack).
   */
  readonly bufferInput: boolean;
  /** Writes the advertisement (`--stateless-rpc --advertise-refs`: smart HTTP's info/refs). */
  advertise(call: ServiceCall): Promise<void>;
  /** Serves one request: a POST's body (stateless) or a whole git:// conversation. */
  handle(call: ServiceCall): Promise<void>;
  /** Opens what a request for `repo` will need, before any comes (a worker with nothing to do). */
  warm?(repo: Repository): Promise<void>;
  /**
   * Cleans up after worker `pid` died serving a request for `gitDir` (in the server's process):
   * what the worker would have removed itself.
   */
  abandoned?(gitDir: string, pid: number): void;
}

/** git daemon's site-wide switches for one service (--enable/--disable, --allow/--forbid-override). */
export interface DaemonServiceRule {
  enabled?: boolean;
  /** daemon.<key> in a repository may turn it on or off (default yes, as in git daemon). */
  overridable?: boolean;
}

/** Whether git daemon would serve `service` from a repository with `config` (daemon.c run_service). */
export function enabledForDaemon(service: Service, config: Config | null, rule: DaemonServiceRule = {}): boolean {
  const overridable = rule.overridable ?? true;
  let enabled = rule.enabled ?? service.daemonDefault;
  if (overridable) enabled = config?.getBool('daemon', null, service.configKey) ?? enabled;
  return enabled;
}

/** Whether http-backend would serve `service` (http-backend.c select_service): http.<key>, else its default. */
export function enabledForHttp(service: Service, config: Config | null, user: string | null): boolean {
  const setting = config?.getBool('http', null, service.configKey) ?? service.httpDefault;
  return setting === 'authenticated' ? !!user : setting;
}
