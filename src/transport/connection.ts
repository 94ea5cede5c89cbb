// What every transport gives the client: the server's first message as packets, a way to send
// requests, and a way to hang up. Stateful transports (ssh, git://, a local upload-pack) keep one
// byte stream open, so every answer continues on the same reader; smart HTTP is stateless, so each
// request is a POST with a response of its own, and the client must resend its state every time
// (git's stateless_rpc).
import type { PacketReader } from '../protocol/pkt-line.js';

export type ProtocolVersion = 0 | 1 | 2;

/** The program on the far end: upload-pack serves fetches, receive-pack takes pushes. */
export type Service = 'git-upload-pack' | 'git-receive-pack';

/** A request body: whole, or (a push's pack) streamed as it is written. */
export type RequestBody = Buffer | AsyncIterable<Uint8Array>;

export interface Connection {
  /** The remote as it may be shown in messages (no password). */
  readonly name: string;
  /** True when every request must carry the whole negotiation state (smart HTTP). */
  readonly stateless: boolean;
  /** The server's first message: a v0/v1 ref advertisement or a v2 capability advertisement. */
  readonly reader: PacketReader;
  /**
   * Sends one request. A stateful transport writes it and returns `reader` (the answer follows
   * there, and the caller may send more before reading, as git pipelines haves); a stateless one
   * returns the reader of a new response. A streamed body is written as it comes (with
   * back-pressure; over HTTP as a chunked POST).
   */
  send(body: RequestBody): Promise<PacketReader>;
  /** Hangs up cleanly: ends our side and waits for the server (or its process) to finish. */
  close(): Promise<void>;
  /** Hangs up at once, after a failure or an interrupt; never throws. */
  abort(): void;
}

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/**
 * Asked for a user name and password when an HTTP server answers 401; `previous` holds what was
 * refused (git's credential helpers get the same chance to reject). Return null to give up.
 */
export type CredentialCallback = (request: { url: string; realm: string | null; previous: Credentials | null }) =>
  Promise<Credentials | null> | Credentials | null;

/** An HTTP remote's settings: http.extraHeader, and credentials with what became of them. */
export interface HttpSettings {
  /** Header lines ("Name: value") sent with every request. */
  readonly extraHeaders: readonly string[];
  readonly credentials?: CredentialCallback;
  /** Told whether credentials that were sent worked (git's credential approve and reject). */
  readonly credentialResult?: (credentials: Credentials, accepted: boolean) => Promise<void>;
  /** The HTTP proxy to go through (`[http://][user:password@]host[:port]`), if any. */
  readonly proxy?: string;
  /** For https: the certificate authorities to trust (PEM; default node's), and whether to check at all. */
  readonly tls?: { readonly ca?: readonly string[]; readonly verify: boolean };
}

export interface ConnectOptions {
  /** The version to ask for; a server that does not speak it answers in v0. Default 2. */
  readonly protocolVersion?: ProtocolVersion;
  /** Environment for spawned commands (ssh, upload-pack) and GIT_SSH_COMMAND lookup. */
  readonly env?: NodeJS.ProcessEnv;
  /** The server's stderr (ssh's messages, upload-pack's fatal errors). Default: our stderr. */
  readonly onStderr?: (chunk: Buffer) => void;
  /** For HTTP servers that ask for authentication and the URL holds no credentials. */
  readonly credentials?: CredentialCallback;
  /** What the configuration says for an HTTP URL (headers, credential helpers); `credentials` above wins. */
  readonly httpSettings?: (url: URL) => HttpSettings;
  /** Which service to talk to (default git-upload-pack). */
  readonly service?: Service;
  /** The upload-pack program to run on the remote side (git's --upload-pack). */
  readonly uploadPack?: string;
  /** The receive-pack program to run on the remote side (git push's --receive-pack). */
  readonly receivePack?: string;
  /** core.sshCommand from config, used when GIT_SSH_COMMAND is not set. */
  readonly sshCommand?: string;
  /** ssh.variant from config, used when GIT_SSH_VARIANT is not set. */
  readonly sshVariant?: string;
}

/**
 * The program the caller named for the service (--upload-pack, or --receive-pack for a push), if
 * any: what a transport that starts the service runs instead of its own default.
 */
export function namedServiceProgram(options: ConnectOptions): string | undefined {
  return options.service === 'git-receive-pack' ? options.receivePack : options.uploadPack;
}

/** The program to run for the service on a remote host: the one named, else git's name for it. */
export function serviceProgram(options: ConnectOptions): string {
  return namedServiceProgram(options) ?? options.service ?? 'git-upload-pack';
}

/** The Git-Protocol header / GIT_PROTOCOL variable value for a version, or null for v0. */
export function protocolParameter(version: ProtocolVersion): string | null {
  return version === 0 ? null : `version=${version}`;
}
