// Where a push goes, as git's remote.c and builtin/push.c decide: the remote named on the command
// line, else branch.<current>.pushRemote, remote.pushDefault, branch.<current>.remote, origin; its
// push URLs are remote.<name>.pushurl (rewritten by url.<base>.insteadOf), else remote.<name>.url
// rewritten by url.<base>.pushInsteadOf when one matches, by insteadOf otherwise. A push goes to
// every push URL in turn.
import type { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { rewriteUrl, rewriteWith } from '../remote-config.js';

export interface PushRemote {
  /** The configured remote, or null when an address was given. */
  readonly name: string | null;
  readonly urls: string[];
  /** remote.<name>.push. */
  readonly push: string[];
  /** remote.<name>.fetch: which remote-tracking refs a push updates. */
  readonly fetch: string[];
  /** remote.<name>.receivepack. */
  readonly receivePack: string | null;
}

/** url.<base>.pushInsteadOf when one matches, else insteadOf. */
function pushUrl(config: Config, url: string): string {
  return rewriteWith(config, url, 'pushinsteadof') ?? rewriteUrl(config, url);
}

export function resolvePushRemote(config: Config, given: string | undefined, currentBranch: string | null): PushRemote {
  const name = given ?? (currentBranch !== null ? config.get('branch', currentBranch, 'pushremote') : undefined)
    ?? config.get('remote', null, 'pushdefault')
    ?? (currentBranch !== null ? config.get('branch', currentBranch, 'remote') : undefined)
    ?? 'origin';
  const urls = config.getAll('remote', name, 'url');
  const pushUrls = config.getAll('remote', name, 'pushurl');
  if (urls.length === 0 && pushUrls.length === 0) {
    if (given === undefined) {
      throw new GitError('client', 'no-remote', 'No configured push destination.\nEither specify the URL from the command-line or configure a remote repository using\n\n'
        + '    git remote add <name> <url>\n\nand then push using the remote name\n\n    git push <name>\n');
    }
    return { name: null, urls: [pushUrl(config, given)], push: [], fetch: [], receivePack: null };
  }
  for (const u of [...urls, ...pushUrls]) if (u === '') throw new GitError('client', 'bad-config', `remote.${name}.url is empty`);
  return {
    name,
    urls: pushUrls.length > 0 ? pushUrls.map((u) => rewriteUrl(config, u)) : urls.map((u) => pushUrl(config, u)),
    push: config.getAll('remote', name, 'push'),
    fetch: config.getAll('remote', name, 'fetch'),
    receivePack: config.get('remote', name, 'receivepack') ?? null,
  };
}
