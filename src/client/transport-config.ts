// The settings git reads before it connects: protocol.version, core.sshCommand, ssh.variant.
import type { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import type { ConnectOptions, ProtocolVersion } from '../transport/index.js';

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
    ...(sshCommand !== undefined ? { sshCommand } : {}),
    ...(sshVariant !== undefined ? { sshVariant } : {}),
  };
}
