// file:// URLs and plain paths: run an upload-pack (or, to push, a receive-pack) on the local
// repository and talk to it over its stdin/stdout, as git does: tsgit's own, unless the caller
// names another (--upload-pack, --receive-pack). The version travels in GIT_PROTOCOL, as git sets
// it for local transports.
import { TSGIT_EXECUTABLE } from '../core/executable.js';
import { protocolParameter, type ConnectOptions, type Service } from './connection.js';
import { spawnConnection } from './process.js';
import type { StreamConnection } from './stream-connection.js';

/**
 * The command that serves `repoPath`: the one place to change which upload-pack a local clone
 * (or receive-pack a local push) uses. `program` is --upload-pack / --receive-pack.
 */
export function localUploadPack(repoPath: string, program: string | undefined,
  service: Service = 'git-upload-pack'): { command: string; args: string[] } {
  if (program !== undefined) return { command: 'sh', args: ['-c', `${program} "$@"`, program, repoPath] };
  return { command: TSGIT_EXECUTABLE.command, args: [...TSGIT_EXECUTABLE.args, service.slice(4), repoPath] };
}

export function connectFile(target: { path: string; display: string }, options: ConnectOptions): StreamConnection {
  const env = { ...(options.env ?? process.env) };
  const protocol = protocolParameter(options.protocolVersion ?? 2);
  if (protocol !== null) env.GIT_PROTOCOL = protocol;
  else delete env.GIT_PROTOCOL;
  const service = options.service ?? 'git-upload-pack';
  const { command, args } = localUploadPack(target.path, service === 'git-receive-pack' ? options.receivePack : options.uploadPack, service);
  return spawnConnection({ name: target.display, command, args, env, onStderr: options.onStderr });
}
