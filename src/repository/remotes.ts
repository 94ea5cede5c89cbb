// The remotes as git 2.39's remote.c reads them, for every command that talks to one (fetch,
// ls-remote, push, clone, the promisor fetches, `tsgit remote`) and for `@{upstream}`; the
// submodule code alone has its own default remote, as git's submodule--helper has (superproject.ts).
// Each remote.<name>.* variable (in any config file, in the order they first appear)
// makes a remote: url, pushurl, fetch and push add to lists, uploadpack and receivepack keep their
// first value (git says so of a second), the booleans and tagOpt their last; a name starting with
// '/' makes none (git warns of each of its variables). URLs are rewritten as git's alias_all_urls
// rewrites them: url.<base>.insteadOf on every URL and push URL; and when a remote has no push
// URL, each URL that url.<base>.pushInsteadOf rewrites becomes one. A remote looked up by a name
// the config gives no URL reads the legacy remotes/ and branches/ files (remote-files.ts), and
// failing those takes the name itself as its URL (git's remote_get).
import { displayName, missingValue } from '../config/config.js';
import { configuredInitialBranch, DEFAULT_INITIAL_BRANCH, parseBool, type Config, type ConfigEntry } from '../config/index.js';
import { GitError } from '../core/errors.js';
import { parseRefspec } from '../refs/refspec.js';
import { readBranchesFile, readRemotesFile, type RemoteFile } from './remote-files.js';

export interface Remote {
  /** The configured name, or for an address given in its place the address as given. */
  readonly name: string;
  /** remote.<name>.url, insteadOf applied; the first is the one fetched from. */
  readonly urls: string[];
  /** remote.<name>.pushurl (insteadOf applied), else the pushInsteadOf rewrites of the URLs. */
  readonly pushUrls: string[];
  /** remote.<name>.fetch and .push, as written. */
  readonly fetch: string[];
  readonly push: string[];
  /** The last remote.<name>.tagOpt that is '--tags' or '--no-tags' (git ignores any other). */
  readonly tagOpt: '--tags' | '--no-tags' | null;
  readonly uploadPack: string | null;
  readonly receivePack: string | null;
  readonly mirror: boolean;
  /** remote.<name>.prune and .pruneTags; null when unset (fetch.prune and fetch.pruneTags decide). */
  readonly prune: boolean | null;
  readonly pruneTags: boolean | null;
  /** remote.<name>.skipFetchAll, or its older name skipDefaultUpdate: `fetch --all` passes it by. */
  readonly skipFetchAll: boolean;
  /** Where it was read: git's REMOTE_CONFIG, REMOTE_REMOTES, REMOTE_BRANCHES; null for an address. */
  readonly origin: 'config' | 'remotes' | 'branches' | null;
  /** Read from the repository's own config (or its files), as git's remote_is_configured(r, 1) asks. */
  readonly inRepo: boolean;
}

type Draft = { -readonly [K in keyof Remote]: Remote[K] };

/** url.<base>.insteadOf (or pushInsteadOf): each base with its prefixes, in the order git meets them. */
type Rewrites = Map<string, string[]>;

/**
 * What git's read_config gathers: the remotes, raw (URLs not yet rewritten), the rewrites, and
 * what git says as it reads them (stderr lines, in the config's order).
 */
interface RemoteState {
  remotes: Map<string, Draft>;
  rewrites: Rewrites;
  pushRewrites: Rewrites;
  warnings: string[];
}

function readState(config: Config): RemoteState {
  const state: RemoteState = { remotes: new Map(), rewrites: new Map(), pushRewrites: new Map(), warnings: [] };
  for (const e of config.list()) {
    if (e.section === 'url' && e.subsection !== null && (e.key === 'insteadof' || e.key === 'pushinsteadof')) {
      const rewrites = e.key === 'insteadof' ? state.rewrites : state.pushRewrites;
      const prefixes = rewrites.get(e.subsection);
      if (prefixes) prefixes.push(valueOf(e));
      else rewrites.set(e.subsection, [valueOf(e)]);
    }
    if (e.section !== 'remote' || e.subsection === null) continue;
    if (e.subsection.startsWith('/')) {
      state.warnings.push(`warning: config remote shorthand cannot begin with '/': ${e.subsection}.${e.key}\n`);
      continue;
    }
    let r = state.remotes.get(e.subsection);
    if (!r) state.remotes.set(e.subsection, r = draft(e.subsection));
    r.origin = 'config';
    if (e.scope === 'local' || e.scope === 'worktree') r.inRepo = true;
    switch (e.key) {
      case 'url': r.urls.push(valueOf(e)); break;
      case 'pushurl': r.pushUrls.push(valueOf(e)); break;
      case 'fetch': r.fetch.push(valueOf(e)); break;
      case 'push': r.push.push(valueOf(e)); break;
      case 'uploadpack': r.uploadPack = firstProgram(state, r.uploadPack, e); break;
      case 'receivepack': r.receivePack = firstProgram(state, r.receivePack, e); break;
      case 'tagopt': if (e.value === '--tags' || e.value === '--no-tags') r.tagOpt = e.value; break;
      case 'mirror': r.mirror = bool(e); break;
      case 'prune': r.prune = bool(e); break;
      case 'prunetags': r.pruneTags = bool(e); break;
      case 'skipfetchall': case 'skipdefaultupdate': r.skipFetchAll = bool(e); break;
    }
  }
  return state;
}

function draft(name: string): Draft {
  return {
    name, urls: [], pushUrls: [], fetch: [], push: [], tagOpt: null, uploadPack: null, receivePack: null,
    mirror: false, prune: null, pruneTags: null, skipFetchAll: false, origin: null, inRepo: false,
  };
}

/** remote.<name>.uploadpack or .receivepack: git keeps the first value, and says so of another. */
function firstProgram(state: RemoteState, kept: string | null, e: ConfigEntry): string {
  const program = valueOf(e);
  if (kept === null) return program;
  state.warnings.push(`error: more than one ${e.key} given, using the first\n`);
  return kept;
}

/** A variable git reads as a string, which must have a value (git's config_error_nonbool). */
function valueOf(e: ConfigEntry): string {
  if (e.value === null) throw missingValue(e);
  return e.value;
}

/** git_config_bool, which dies on anything else (with no file and line, as git words it here). */
function bool(e: ConfigEntry): boolean {
  const value = parseBool(e.value);
  if (value === null) throw new GitError('config', 'bad-value', `bad boolean config value '${e.value}' for '${displayName(e)}'`);
  return value;
}

/** git's alias_url: the longest matching prefix wins (the earlier base on a tie); null when none matches. */
function alias(url: string, rewrites: Rewrites): string | null {
  let best: { base: string; prefix: string } | null = null;
  for (const [base, prefixes] of rewrites) {
    for (const prefix of prefixes) {
      if (url.startsWith(prefix) && (!best || prefix.length > best.prefix.length)) best = { base, prefix };
    }
  }
  return best ? best.base + url.slice(best.prefix.length) : null;
}

/** git's add_url_alias: the URL rewritten, and a push URL where pushInsteadOf rewrites it. */
function addUrlAlias(state: RemoteState, r: Draft, url: string): void {
  r.urls.push(alias(url, state.rewrites) ?? url);
  const pushed = alias(url, state.pushRewrites);
  if (pushed !== null) r.pushUrls.push(pushed);
}

/** git's alias_all_urls on one remote read from the config. */
function aliased(state: RemoteState, raw: Draft): Draft {
  const r: Draft = {
    ...raw, urls: [], pushUrls: raw.pushUrls.map((u) => alias(u, state.rewrites) ?? u), fetch: [...raw.fetch], push: [...raw.push],
  };
  const addPushAliases = r.pushUrls.length === 0;
  for (const url of raw.urls) {
    if (addPushAliases) addUrlAlias(state, r, url);
    else r.urls.push(alias(url, state.rewrites) ?? url);
  }
  return r;
}

/**
 * What git says as it reads the remotes in `config` (remote.c handle_config), once a process: a
 * second remote.<name>.uploadpack or receivepack, a remote named from '/'.
 */
export function remoteConfigWarnings(config: Config): string[] {
  return readState(config).warnings;
}

/** Every remote the config names, in the order git's for_each_remote gives them. */
export function configuredRemotes(config: Config): Remote[] {
  const state = readState(config);
  return [...state.remotes.values()].map((r) => aliased(state, r));
}

/**
 * git's remote_for_branch: the current branch's branch.<name>.remote, else the only remote the
 * config names, else origin; `given` says whether the config named it.
 */
function remoteForBranch(config: Config, state: RemoteState, currentBranch: string | null): { name: string; given: boolean } {
  const name = currentBranch !== null ? config.get('branch', currentBranch, 'remote') : undefined;
  if (name !== undefined) return { name, given: true };
  return { name: state.remotes.size === 1 ? [...state.remotes.keys()][0]! : 'origin', given: false };
}

/** The name of the remote a bare `fetch` or `ls-remote` talks to (git's remote_for_branch). */
export function defaultRemoteName(config: Config, currentBranch: string | null): string {
  return remoteForBranch(config, readState(config), currentBranch).name;
}

/**
 * git's remotes_remote_get_1: the remote `name` names; `given` when a command or the config named
 * it, so that an unknown name is taken as an address. Outside a repository (`commonDir` null) no
 * legacy file is read. Null when nothing gives it a URL.
 */
function lookUp(config: Config, state: RemoteState, commonDir: string | null, name: string, given: boolean): Remote | null {
  const configured = state.remotes.get(name);
  const r = configured ? aliased(state, configured) : draft(name);
  // git's valid_remote_nick: a name that can be a file's under remotes/ or branches/.
  if (commonDir !== null && name !== '' && name !== '.' && name !== '..' && !name.includes('/')) {
    if (r.urls.length === 0) addFile(state, r, readRemotesFile(commonDir, name), 'remotes');
    if (r.urls.length === 0) {
      addFile(state, r, readBranchesFile(commonDir, name, configuredInitialBranch(config) ?? DEFAULT_INITIAL_BRANCH), 'branches');
    }
  }
  if (given && r.urls.length === 0) addUrlAlias(state, r, name);
  return r.urls.length > 0 ? r : null;
}

function addFile(state: RemoteState, r: Draft, file: RemoteFile | null, origin: 'remotes' | 'branches'): void {
  if (file === null) return;
  r.origin = origin;
  r.inRepo = true;
  for (const url of file.urls) addUrlAlias(state, r, url);
  r.push.push(...file.push);
  r.fetch.push(...file.fetch);
}

/** git's remote_get(name): the configured remote `name`, else the address it is. */
export function remoteGet(config: Config, commonDir: string | null, name: string): Remote {
  return lookUp(config, readState(config), commonDir, name, true)!;
}

/**
 * git fetch's add_remote_or_group: the remotes the group remotes.<name> lists (its values split at
 * white space, the names not looked up), else `name` when it is a configured remote (in the config
 * or a file of .git/remotes or .git/branches); null when it is neither.
 */
export function remoteOrGroup(config: Config, commonDir: string | null, name: string): string[] | null {
  const members = config.getAll('remotes', null, name).flatMap((v) => v.split(/[ \t\n]+/).filter((m) => m !== ''));
  if (members.length > 0) return members;
  return remoteGet(config, commonDir, name).origin !== null ? [name] : null;
}

/** git's remote_get(NULL): the remote a bare `fetch` or `ls-remote` talks to, if there is one. */
export function defaultRemote(config: Config, commonDir: string | null, currentBranch: string | null): Remote | null {
  const state = readState(config);
  const { name, given } = remoteForBranch(config, state, currentBranch);
  return lookUp(config, state, commonDir, name, given);
}

/**
 * git's pushremote_get(NULL): the remote a bare `push` goes to, named by branch.<current>.pushRemote,
 * else remote.pushDefault, else as for fetch.
 */
export function defaultPushRemote(config: Config, commonDir: string | null, currentBranch: string | null): Remote | null {
  const state = readState(config);
  const { name, given } = pushRemoteForBranch(config, state, currentBranch);
  return lookUp(config, state, commonDir, name, given);
}

/**
 * git's pushremote_for_branch: branch.<name>.pushRemote, else remote.pushDefault, else the remote
 * fetched from (remote_for_branch); `given` says whether the config named it.
 */
function pushRemoteForBranch(config: Config, state: RemoteState, branch: string | null): { name: string; given: boolean } {
  const name = (branch !== null ? config.get('branch', branch, 'pushremote') : undefined) ?? config.get('remote', null, 'pushdefault');
  return name !== undefined ? { name, given: true } : remoteForBranch(config, state, branch);
}

/**
 * The remote a push of `branch` goes to, as `<branch>@{push}` finds it (git's branch_get_push):
 * pushremote_for_branch's name, looked up as named, so that an unknown one is an address.
 */
export function pushRemoteOf(config: Config, commonDir: string | null, branch: string): Remote {
  const state = readState(config);
  return lookUp(config, state, commonDir, pushRemoteForBranch(config, state, branch).name, true)!;
}

/** git's push_url_of_remote: where a push goes, each URL in turn. */
export function pushUrlsOf(remote: Remote): string[] {
  return remote.pushUrls.length > 0 ? remote.pushUrls : remote.urls;
}

/** git's remote_get(name) when remote_is_configured(remote, 1): what `tsgit remote` works on, else null. */
export function findRemote(config: Config, commonDir: string, name: string): Remote | null {
  const remote = remoteGet(config, commonDir, name);
  return remote.inRepo ? remote : null;
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
