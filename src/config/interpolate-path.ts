// A path from the configuration as git expands it (path.c interpolate_path): `~/` (or `~` alone) is
// $HOME, `~user/` that user's home directory from the password file, `%(prefix)/` git's install
// prefix. git_config_pathname (core.attributesFile, http.sslCAInfo, `config --type=path`) dies
// when it cannot expand one; include.path and includeIf's gitdir: handle that themselves.
import fs from 'node:fs';
import { GitError } from '../core/errors.js';

/** Where git's own `%(prefix)` is, for the Debian git tsgit is compared with. */
const PREFIX = '/usr';

/**
 * `value` expanded, or null where git's interpolate_path returns NULL: $HOME unset for `~`, an
 * unknown user for `~user`. `realHome` turns $HOME into its real path first (includeIf's gitdir:
 * patterns are matched against real paths; a user's home from the password file is taken as it is).
 */
export function interpolatePath(value: string, env: NodeJS.ProcessEnv, realHome?: (home: string) => string): string | null {
  if (value.startsWith('%(prefix)/')) return `${PREFIX}/${value.slice('%(prefix)/'.length)}`;
  if (!value.startsWith('~')) return value;
  const slash = value.indexOf('/');
  const user = value.slice(1, slash < 0 ? value.length : slash);
  let home: string | undefined;
  if (user !== '') home = homeOf(user);
  else if (env.HOME !== undefined) home = realHome ? realHome(env.HOME) : env.HOME;
  if (home === undefined) return null;
  return home + (slash < 0 ? '' : value.slice(slash));
}

/** git_config_pathname: the value expanded, or git's death when it cannot be. */
export function configPathname(value: string, env: NodeJS.ProcessEnv): string {
  const expanded = interpolatePath(value, env);
  if (expanded === null) throw new GitError('config', 'bad-value', `failed to expand user dir in: '${value}'`);
  return expanded;
}

/** A user's home directory from /etc/passwd, as getpwnam finds it. */
function homeOf(user: string): string | undefined {
  let passwd: string;
  try {
    passwd = fs.readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const fields = line.split(':');
    if (fields[0] === user && fields.length >= 7) return fields[5];
  }
  return undefined;
}
