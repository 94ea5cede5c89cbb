// file:// URLs and plain paths: run an upload-pack on the local repository and talk to it over
// its stdin/stdout, as git does: tsgit's own, unless the caller names another (--upload-pack). The
// version travels in GIT_PROTOCOL, as git sets it for local transports.
import { TSGIT_EXECUTABLE } from '../core/executable.js';
import { protocolParameter, type ConnectOptions } from './connection.js';
import { spawnConnection } from './process.js';
import type { StreamConnection } from './stream-connection.js';

/** The command that serves `repoPath`: the one place to change which upload-pack a local clone uses. */
export function localUploadPack(repoPath: string, uploadPack: string | undefined): { command: string; args: string[] } {
  if (uploadPack !== undefined) return { command: 'sh', args: ['-c', `${uploadPack} "$@"`, uploadPack, repoPath] };
  return { command: TSGIT_EXECUTABLE.command, args: [...TSGIT_EXECUTABLE.args, 'upload-pack', repoPath] };
}

export function connectFile(target: { path: string; display: string }, options: ConnectOptions): StreamConnection {
  const env = { ...(options.env ?? process.env) };
  const protocol = protocolParameter(options.protocolVersion ?? 2);
  if (protocol !== null) env.GIT_PROTOCOL = protocol;
  else delete env.GIT_PROTOCOL;
  const { command, args } = localUploadPack(target.path, options.uploadPack);
  return spawnConnection({ name: target.display, command, args, env, onStderr: options.onStderr });
}
