// The settings git reads before it connects: protocol.version, core.sshCommand, ssh.variant, an
// HTTP URL's headers and credentials (http.<url>.extraHeader, credential.<url>.*), and whether
// the protocol may be used at all (protocol.<name>.allow).
import { parseBool, type Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import type { ConnectOptions, ProtocolVersion, RemoteUrl } from '../transport/index.js';
import { httpSettingsFor } from './http-settings.js';

export function connectOptionsFromConfig(config: Config, env: NodeJS.ProcessEnv): ConnectOptions {
  const version = config.get('protocol', null, 'version');
  let protocolVersion: ProtocolVersion = 2;
  if (version !== undefined) {
    if (version !== '0' && version !== '1' && version !== '2') {
      throw new GitError('config', 'bad-value', `unknown value for config 'protocol.version': ${version}`);
    }
    protocolVersion = Number(version) as ProtocolVersion;
  }
  const sshCommand = config.get('core', null, 'sshcommand');
  const sshVariant = config.get('ssh', null, 'variant');
  return {
    env, protocolVersion,
    httpSettings: (url) => httpSettingsFor(config, env, url),
    ...(sshCommand !== undefined ? { sshCommand } : {}),
    ...(sshVariant !== undefined ? { sshVariant } : {}),
  };
}

/** The name git's protocol.<name>.allow uses for a remote address. */
export function protocolName(url: RemoteUrl): string {
  return url.kind === 'http' ? url.url.protocol.slice(0, -1).toLowerCase() : url.kind;
}

/**
 * git's transport_check_allowed: $GIT_ALLOW_PROTOCOL (a colon-separated list) if set, else
 * protocol.<name>.allow, else protocol.allow, else git's defaults: http, https, git and ssh always,
 * anything else (file, which covers local paths too) only when the user asked for it directly:
 * `user` means unless $GIT_PROTOCOL_FROM_USER says 0, which is what git sets for the clones and
 * fetches a submodule update makes (CVE-2022-39253: a repository must not make a clone read
 * another local repository, nor follow its symlinks, behind the user's back).
 */
export function checkProtocolAllowed(config: Config, env: NodeJS.ProcessEnv, url: RemoteUrl): void {
  const name = protocolName(url);
  if (!isProtocolAllowed(config, env, name)) throw new GitError('transport', 'not-allowed', `transport '${name}' not allowed`);
}

function isProtocolAllowed(config: Config, env: NodeJS.ProcessEnv, name: string): boolean {
  const list = env.GIT_ALLOW_PROTOCOL;
  if (list !== undefined) return list.split(':').includes(name);
  const key = `protocol.${name}.allow`;
  let policy = config.get('protocol', name, 'allow');
  let from = key;
  if (policy === undefined) {
    policy = config.get('protocol', null, 'allow');
    from = 'protocol.allow';
  }
  if (policy === undefined) {
    if (name === 'http' || name === 'https' || name === 'git' || name === 'ssh') return true;
    if (name === 'ext') return false;
    policy = 'user';
  }
  switch (policy) {
    case 'always': return true;
    case 'never': return false;
    case 'user': return fromUser(env);
    default: throw new GitError('config', 'bad-value', `unknown value for config '${from}': ${policy}`);
  }
}

function fromUser(env: NodeJS.ProcessEnv): boolean {
  const v = env.GIT_PROTOCOL_FROM_USER;
  if (v === undefined) return true;
  const b = parseBool(v);
  if (b === null) throw new GitError('config', 'bad-value', `bad boolean environment value '${v}' for 'GIT_PROTOCOL_FROM_USER'`);
  return b;
}
