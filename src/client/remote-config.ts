// Which remote a command talks to, as git's remote.c decides: a configured remote's name gives its
// url and fetch refspecs; anything else is an address. url.<base>.insteadOf rewrites addresses
// (the longest matching prefix wins).
import { parseBool, type Config } from '../config/index.js';
import { GitError } from '../core/errors.js';

export interface RemoteSpec {
  /** The configured remote's name, or null when the address was given directly. */
  readonly name: string | null;
  readonly url: string;
  /** remote.<name>.fetch, in order. */
  readonly fetch: string[];
  /** remote.<name>.tagOpt: '--no-tags' or '--tags' when set. */
  readonly tagOpt: string | null;
  readonly uploadPack: string | null;
}

export function rewriteUrl(config: Config | null, url: string): string {
  return (config && rewriteWith(config, url, 'insteadof')) ?? url;
}

/** url.<base>.<key> (insteadOf, pushInsteadOf): the longest matching prefix wins; null when none matches. */
export function rewriteWith(config: Config, url: string, key: 'insteadof' | 'pushinsteadof'): string | null {
  let best: { base: string; prefix: string } | null = null;
  for (const e of config.list()) {
    if (e.section !== 'url' || e.key !== key || e.subsection === null || e.value === null) continue;
    if (url.startsWith(e.value) && (!best || e.value.length > best.prefix.length)) best = { base: e.subsection, prefix: e.value };
  }
  return best ? best.base + url.slice(best.prefix.length) : null;
}

/**
 * The remotes `fetch --all` fetches: every configured one, in the order git's remote.c first
 * meets them in the config, less those whose remote.<name>.skipFetchAll (or its older name
 * skipDefaultUpdate, the same setting to git) is true.
 */
export function remotesToFetchAll(config: Config): string[] {
  const skip = new Map<string, boolean>();
  for (const e of config.list()) {
    if (e.section !== 'remote' || e.subsection === null) continue;
    if (!skip.has(e.subsection)) skip.set(e.subsection, false);
    if (e.key !== 'skipfetchall' && e.key !== 'skipdefaultupdate') continue;
    const value = parseBool(e.value);
    if (value === null) throw new GitError('config', 'bad-value', `bad boolean config value '${e.value}' for 'remote.${e.subsection}.${e.key}'`);
    skip.set(e.subsection, value);
  }
  return [...skip].filter(([, skipped]) => !skipped).map(([name]) => name);
}

/** A configured remote by name, or the address itself. */
export function resolveRemote(config: Config | null, nameOrUrl: string): RemoteSpec {
  const url = config?.get('remote', nameOrUrl, 'url');
  if (config && url !== undefined) {
    if (url === '') throw new GitError('client', 'bad-config', `remote.${nameOrUrl}.url is empty`);
    const tagOpt = config.get('remote', nameOrUrl, 'tagopt') ?? null;
    return {
      name: nameOrUrl,
      url: rewriteUrl(config, url),
      fetch: config.getAll('remote', nameOrUrl, 'fetch'),
      tagOpt,
      uploadPack: config.get('remote', nameOrUrl, 'uploadpack') ?? null,
    };
  }
  return {
    name: null, url: rewriteUrl(config, nameOrUrl), fetch: [], tagOpt: null, uploadPack: null,
  };
}

/** The remote a bare `fetch` or `ls-remote` uses: the current branch's, else origin. */
export function defaultRemoteName(config: Config, currentBranch: string | null): string {
  if (currentBranch !== null) {
    const name = config.get('branch', currentBranch, 'remote');
    if (name) return name;
  }
  return 'origin';
}
