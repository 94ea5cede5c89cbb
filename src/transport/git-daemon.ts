// git:// (gitprotocol-pack "Git Transport"): a TCP connection to git daemon, opened with one
// pkt-line naming the service, the path and the host, and for protocol v1/v2 an extra parameter
// after a second NUL, which the daemon hands to upload-pack as GIT_PROTOCOL. An older daemon
// ignores it and answers in v0.
//   git-upload-pack /project.git\0host=example.com:9418\0\0version=2\0
import net from 'node:net';
import { GitError } from '../core/errors.js';
import { pktLine } from '../protocol/pkt-line.js';
import { protocolParameter, type ConnectOptions } from './connection.js';
import { StreamConnection } from './stream-connection.js';

export const GIT_DAEMON_PORT = 9418;

export interface GitTarget {
  readonly host: string;
  readonly port: number | null;
  readonly path: string;
  readonly display: string;
}

/** The daemon's request line. The host is sent as written, with its port if the URL gave one. */
export function formatDaemonRequest(service: string, target: GitTarget, version: 0 | 1 | 2): Buffer {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  let line = `${service} ${target.path}\0host=${host}${target.port !== null ? `:${target.port}` : ''}\0`;
  const protocol = protocolParameter(version);
  if (protocol !== null) line += `\0${protocol}\0`;
  return pktLine(line);
}

export async function connectGitDaemon(target: GitTarget, options: ConnectOptions): Promise<StreamConnection> {
  if (/[\0\n]/.test(target.path)) throw new GitError('transport', 'bad-url', `invalid path in ${target.display}`);
  const port = target.port ?? GIT_DAEMON_PORT;
  const socket = net.connect({ host: target.host, port });
  let failure: Error | null = null;
  const closed = new Promise<void>((resolve, reject) => {
    socket.on('error', (e) => { failure ??= e; });
    socket.on('close', () => {
      if (failure) reject(new GitError('transport', 'io', `${target.display}: ${describe(failure, target.host, port)}`, { cause: failure }));
      else resolve();
    });
  });
  closed.catch(() => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', (e) => reject(new GitError('transport', 'connect', `unable to connect to ${target.host}:${port}: ${describe(e, target.host, port)}`, { cause: e })));
  });
  // Small requests on a fresh socket: Nagle's delay would only slow each negotiation round.
  socket.setNoDelay(true);
  const conn = new StreamConnection({
    name: target.display,
    input: socket,
    output: socket,
    finished: () => closed,
    kill: () => socket.destroy(),
  });
  await conn.send(formatDaemonRequest(options.service ?? 'git-upload-pack', target, options.protocolVersion ?? 2));
  return conn;
}

function describe(e: Error, host: string, port: number): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return `connection refused by ${host}:${port}`;
  if (code === 'ECONNRESET') return 'connection reset by peer';
  return e.message;
}
