// file:// URLs and plain paths: run an upload-pack (or, to push, a receive-pack) on the local
// repository and talk to it over its stdin/stdout, as git does: tsgit's own, unless the caller
// names another (--upload-pack, --receive-pack). The version travels in GIT_PROTOCOL, as git sets
// it for local transports.
import { TSGIT_EXECUTABLE, tsgitChildEnv } from '../core/executable.js';
import { shellArgv } from '../core/shell.js';
import { namedServiceProgram, protocolParameter, type ConnectOptions } from './connection.js';
import { spawnConnection } from './process.js';
import type { StreamConnection } from './stream-connection.js';
import { withoutLocalRepoEnv } from './local-repo-env.js';

/**
 * The command that serves `repoPath` on this machine for `options.service` (upload-pack for a
 * fetch, receive-pack for a push): the program the caller named, with the path as its argument,
 * started as git starts it (through the shell when it needs one), else tsgit's own. The one place
 * to change which program a local clone or push talks to.
 */
export function localServiceCommand(repoPath: string, options: ConnectOptions): { command: string; args: string[]; own: boolean } {
  const named = namedServiceProgram(options);
  if (named !== undefined) return { ...shellArgv(named, [repoPath]), own: false };
  const service = options.service ?? 'git-upload-pack';
  return { command: TSGIT_EXECUTABLE.command, args: [...TSGIT_EXECUTABLE.args, service.slice(4), repoPath], own: true };
}

export function connectFile(target: { given: string; cwd: string; display: string }, options: ConnectOptions): StreamConnection {
  // The path as given, from where it was given: the far end names it so ("'../x' does not appear
  // to be a git repository").
  const { command, args, own } = localServiceCommand(target.given, options);
  const given = withoutLocalRepoEnv(options.env ?? process.env);
  const env = own ? tsgitChildEnv(given) : given;
  const protocol = protocolParameter(options.protocolVersion ?? 2);
  if (protocol !== null) env.GIT_PROTOCOL = protocol;
  else delete env.GIT_PROTOCOL;
  return spawnConnection({ name: target.display, command, args, cwd: target.cwd, env, onStderr: options.onStderr });
}
