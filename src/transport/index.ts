// Transports turn a remote address into a Connection: byte streams carrying pkt-lines, nothing
// more. The protocol on top is the client's business.
//
// Order of operations:
//   url.ts               parse the address as git does (URL, scp-like, local path)
//   connect() below      pick the transport by the address's kind
//   http.ts              smart HTTP: GET info/refs, then one POST per request (stateless)
//   git-daemon.ts        git://: TCP, one request line, then a stateful stream
//   ssh.ts               the system ssh (GIT_SSH_COMMAND, GIT_SSH, variants), stateful
//   file.ts              a local upload-pack process, stateful
//   process.ts, stream-connection.ts   the stateful plumbing shared by the last three
//
// The accepting side, for server/: listen.ts (bind with a clear error, lingering close),
// connection-limit.ts (git daemon's --max-connections, by client address), daemon-accept.ts (the
// git:// request line within the init timeout), http-accept.ts (node:http with the serve timeouts).
import type { Connection, ConnectOptions } from './connection.js';
import { connectFile } from './file.js';
import { connectGitDaemon } from './git-daemon.js';
import { connectHttp } from './http.js';
import { connectSsh } from './ssh.js';
import type { RemoteUrl } from './url.js';

export * from './connection.js';
export { anonymizeUrl, parseRemoteUrl, redact, type RemoteUrl } from './url.js';
export { sshInvocation } from './ssh.js';
export { shellQuote } from '../core/shell.js';
export { formatDaemonRequest } from './git-daemon.js';
export { StreamConnection } from './stream-connection.js';
export { withoutLocalRepoEnv } from './local-repo-env.js';

/** Opens a connection to the remote's upload-pack; the server's first message is on `reader`. */
export async function connect(url: RemoteUrl, options: ConnectOptions = {}): Promise<Connection> {
  switch (url.kind) {
    case 'http': return connectHttp(url.url, options);
    case 'git': return connectGitDaemon(url, options);
    case 'ssh': return connectSsh(url, options);
    case 'file': return connectFile(url, options);
  }
}
