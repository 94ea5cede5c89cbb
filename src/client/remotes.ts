// The remotes as git's remote.c knows them, for `tsgit remote`: each configured one (remote.<name>.*
// in any config file, in the order they first appear), and by name also those of the legacy
// `$GIT_COMMON_DIR/remotes/<name>` and `branches/<name>` files. URLs are rewritten as git's
// alias_all_urls rewrites them: url.<base>.insteadOf on every URL and push URL; and when a remote
// has no push URL, each URL that url.<base>.pushInsteadOf rewrites becomes one.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { parseRefspec } from '../refs/refspec.js';
import { rewriteUrl, rewriteWith } from './remote-config.js';

export interface Remote {
  readonly name: string;
  /** remote.<name>.url, insteadOf applied. */
  readonly urls: string[];
  /** remote.<name>.pushurl (insteadOf applied), else the pushInsteadOf rewrites of the URLs. */
  readonly pushUrls: string[];
  /** remote.<name>.fetch as written. */
  readonly fetch: string[];
  readonly push: string[];
  /** Where it was read: git's REMOTE_CONFIG, REMOTE_REMOTES, REMOTE_BRANCHES. */
  readonly origin: 'config' | 'remotes' | 'branches';
  /** Read from the repository's own config (or its files), as git's remote_is_configured(r, 1) asks. */
  readonly inRepo: boolean;
}

interface Raw {
  urls: string[];
  pushUrls: string[];
  fetch: string[];
  push: string[];
  inRepo: boolean;
}

/** Every remote the config names, in the order git's for_each_remote gives them. */
export function configuredRemotes(config: Config): Remote[] {
  const raw = new Map<string, Raw>();
  for (const e of config.list()) {
    // git ignores a remote whose name starts with '/' (with a warning this leaves out).
    if (e.section !== 'remote' || e.subsection === null || e.subsection.startsWith('/')) continue;
    let r = raw.get(e.subsection);
    if (!r) raw.set(e.subsection, r = { urls: [], pushUrls: [], fetch: [], push: [], inRepo: false });
    if (e.scope === 'local' || e.scope === 'worktree') r.inRepo = true;
    const value = e.value ?? '';
    if (e.key === 'url') r.urls.push(value);
    else if (e.key === 'pushurl') r.pushUrls.push(value);
    else if (e.key === 'fetch') r.fetch.push(value);
    else if (e.key === 'push') r.push.push(value);
  }
  return [...raw].map(([name, r]) => aliased(config, name, r, 'config'));
}

/**
 * git's remote_get(name) when remote_is_configured(remote, 1): the remote the repository's config
 * or its remotes/ or branches/ file defines, else null. A remote without a URL takes its name as
 * one, as git's does.
 */
export function findRemote(config: Config, commonDir: string, name: string): Remote | null {
  let remote = configuredRemotes(config).find((r) => r.name === name) ?? null;
  if ((remote === null || remote.urls.length === 0) && validNick(name)) remote = legacyRemote(config, commonDir, name) ?? remote;
  if (remote === null || !remote.inRepo) return null;
  if (remote.urls.length > 0) return remote;
  // git's add_url_alias: the URL rewritten, and a push URL added when pushInsteadOf rewrites it.
  return { ...remote, urls: [rewriteUrl(config, name)], pushUrls: [...remote.pushUrls, ...pushAliases(config, [name])] };
}

/** git's valid_remote_name: refs/remotes/<name>/test must be a valid fetch destination. */
export function validRemoteName(name: string): boolean {
  try {
    parseRefspec(`refs/heads/test:refs/remotes/${name}/test`);
    return true;
  } catch {
    return false;
  }
}

/** git's valid_remote_nick: a name that can be a file's under remotes/ or branches/. */
function validNick(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/');
}

/** The remote of $GIT_COMMON_DIR/remotes/<name> (URL:, Push:, Pull: lines), else of branches/<name> (`<url>[#<branch>]`). */
function legacyRemote(config: Config, commonDir: string, name: string): Remote | null {
  const remotes = readText(path.join(commonDir, 'remotes', name));
  if (remotes !== null) {
    const r: Raw = { urls: [], pushUrls: [], fetch: [], push: [], inRepo: true };
    for (const line of remotes.split('\n')) {
      const m = /^(URL|Push|Pull):[ \t\n\v\f\r]*(.*?)[ \t\n\v\f\r]*$/s.exec(line);
      if (m) (m[1] === 'URL' ? r.urls : m[1] === 'Push' ? r.push : r.fetch).push(m[2]!);
    }
    if (r.urls.length > 0) return aliased(config, name, r, 'remotes');
  }
  const branches = readText(path.join(commonDir, 'branches', name));
  const line = branches?.split('\n')[0]!.trim() ?? '';
  if (line === '') return null;
  const hash = line.indexOf('#');
  const url = hash < 0 ? line : line.slice(0, hash);
  const branch = hash < 0 ? (config.get('init', null, 'defaultbranch') ?? 'master') : line.slice(hash + 1);
  return aliased(config, name, {
    urls: [url], pushUrls: [], fetch: [`refs/heads/${branch}:refs/heads/${name}`], push: [`HEAD:refs/heads/${branch}`], inRepo: true,
  }, 'branches');
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** git's alias_all_urls on one remote. */
function aliased(config: Config, name: string, r: Raw, origin: Remote['origin']): Remote {
  const pushUrls = r.pushUrls.length > 0 ? r.pushUrls.map((u) => rewriteUrl(config, u)) : pushAliases(config, r.urls);
  return { name, urls: r.urls.map((u) => rewriteUrl(config, u)), pushUrls, fetch: r.fetch, push: r.push, origin, inRepo: r.inRepo };
}

/** The URLs url.<base>.pushInsteadOf rewrites, rewritten (git's add_pushurl_alias). */
function pushAliases(config: Config, urls: string[]): string[] {
  return urls.map((u) => rewriteWith(config, u, 'pushinsteadof')).filter((u): u is string => u !== null);
}
