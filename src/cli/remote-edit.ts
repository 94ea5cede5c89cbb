// The `tsgit remote` subcommands that change one remote's settings, as git 2.39's builtin/remote.c
// does them: add, set-url, set-branches and set-head. Config goes to the repository's file through
// git's writer (config-multivar.ts), in git's order of writes, so that the file is git's byte for byte.
import { lsRemote } from '../client/ls-remote.js';
import { findRemote, remoteGet, validRemoteName, type Remote } from '../repository/remotes.js';
import type { RemoteRef } from '../client/session.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from '../client/transport-config.js';
import type { Config } from '../config/index.js';
import { posixExtended } from '../config/posix-regex.js';
import { GitError } from '../core/errors.js';
import type { Repository } from '../repository/repository.js';
import { parseRemoteUrl } from '../transport/index.js';
import { setMultivar, setMultivarGently } from './config-multivar.js';
import { fatal, type CommandContext } from './context.js';
import { Output, writeStderr } from './output.js';

/** What a subcommand works on: the repository, its config as read at the start, and the file written. */
export interface RemoteSetup {
  ctx: CommandContext;
  repo: Repository;
  config: Config;
  /** The repository's config file. */
  file: string;
}

/** git's exit(2) after "No such remote" (set-branches, get-url and set-url word it without the colon). */
export class NoSuchRemote extends GitError {
  constructor(name: string, colon: boolean) {
    super('cli', 'no-such-remote', `No such remote${colon ? ':' : ''} '${name}'`);
  }
}

/** The remote `name` as git's remote_get finds it when remote_is_configured(remote, 1), else null. */
export function findRemoteIn(setup: RemoteSetup, name: string): Remote | null {
  return findRemote(setup.config, setup.repo.commonDir, name);
}

/** The remote `name`, else NoSuchRemote. */
export function remoteNamed(setup: RemoteSetup, name: string, colon: boolean): Remote {
  const remote = findRemoteIn(setup, name);
  if (!remote) throw new NoSuchRemote(name, colon);
  return remote;
}

export const MIRROR_FETCH = 1, MIRROR_PUSH = 2;

export interface AddOptions {
  fetch: boolean;
  /** --tags (true), --no-tags (false), neither (null). */
  tags: boolean | null;
  track: string[];
  master: string | null;
  /** MIRROR_FETCH | MIRROR_PUSH bits. */
  mirror: number;
}

/** `remote add`; `fetch` runs `fetch <name>` as git's fetch_remote does, returning whether it worked. */
export async function addRemote(setup: RemoteSetup, name: string, url: string, o: AddOptions,
  fetch: () => Promise<boolean>): Promise<number> {
  if (o.mirror && o.master !== null) throw fatal('specifying a master branch makes no sense with --mirror');
  if (o.mirror && !(o.mirror & MIRROR_FETCH) && o.track.length > 0) throw fatal('specifying branches to track makes sense only with fetch mirrors');
  if (findRemoteIn(setup, name)) {
    writeStderr(`error: remote ${name} already exists.\n`);
    return 3;
  }
  if (!validRemoteName(name)) throw fatal(`'${name}' is not a valid remote name`);
  setMultivar(setup.file, { key: `remote.${name}.url`, value: url });
  if (!o.mirror || o.mirror & MIRROR_FETCH) {
    for (const branch of o.track.length > 0 ? o.track : ['*']) addBranch(setup, name, branch, o.mirror !== 0);
  }
  if (o.mirror & MIRROR_PUSH) setMultivar(setup.file, { key: `remote.${name}.mirror`, value: 'true' });
  if (o.tags !== null) setMultivar(setup.file, { key: `remote.${name}.tagOpt`, value: o.tags ? '--tags' : '--no-tags' });
  if (o.fetch && !(await fetch())) return 1;
  if (o.master !== null) {
    try {
      setup.repo.openRefs(setup.ctx.env, setup.config).setSymbolic(`refs/remotes/${name}/HEAD`, `refs/remotes/${name}/${o.master}`, { reflogMessage: 'remote add' });
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      writeStderr(`error: ${e.message}\nerror: Could not setup master '${o.master}'\n`);
      return 1;
    }
  }
  return 0;
}

/** git's add_branch: one more fetch refspec for `branch` (a mirror's maps refs/<branch> onto itself). */
function addBranch(setup: RemoteSetup, remote: string, branch: string, mirror: boolean): void {
  const refspec = mirror ? `+refs/${branch}:refs/${branch}` : `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`;
  setMultivar(setup.file, { key: `remote.${remote}.fetch`, value: refspec, pattern: '^$' });
}

/** `remote set-branches [--add] <name> <branch>...`. */
export function setBranches(setup: RemoteSetup, name: string, branches: string[], add: boolean): number {
  const remote = remoteNamed(setup, name, false);
  const key = `remote.${name}.fetch`;
  // git gives up when there was no refspec to remove.
  if (!add && !setMultivarGently(setup.file, { key, value: null, all: true })) return 1;
  for (const branch of branches) addBranch(setup, name, branch, remote.mirror);
  return 0;
}

/** `remote set-url [--push] [--add | --delete] <name> <newurl> [<oldurl>]`. */
export function setUrl(setup: RemoteSetup, name: string, newUrl: string, oldUrl: string | null,
  o: { push: boolean; add: boolean; delete: boolean }): number {
  const remote = remoteNamed(setup, name, false);
  const key = `remote.${name}.${o.push ? 'pushurl' : 'url'}`;
  if (o.delete) oldUrl = newUrl;
  if ((oldUrl === null && !o.delete) || o.add) {
    setMultivar(setup.file, o.add ? { key, value: newUrl, pattern: '^$' } : { key, value: newUrl });
    return 0;
  }
  const re = posixExtended(oldUrl!);
  if (!re) throw fatal(`Invalid old URL pattern: ${oldUrl}`);
  const urls = o.push ? remote.pushUrls : remote.urls;
  const matches = urls.filter((u) => re.test(u)).length;
  if (!o.delete && matches === 0) throw fatal(`No such URL found: ${oldUrl}`);
  if (o.delete && matches === urls.length && !o.push) throw fatal('Will not delete all non-push URLs');
  setMultivar(setup.file, o.delete ? { key, value: null, pattern: oldUrl, all: true } : { key, value: newUrl, pattern: oldUrl });
  return 0;
}

/** `remote set-head <name> (-a | -d | <branch>)`, the arguments checked by the caller. */
export async function setHead(setup: RemoteSetup, name: string, how: { auto: true } | { delete: true } | { branch: string }): Promise<number> {
  const head = `refs/remotes/${name}/HEAD`;
  const refs = setup.repo.openRefs(setup.ctx.env, setup.config);
  if ('delete' in how) {
    try {
      refs.delete(head, { noDeref: true });
      return 0;
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      writeStderr(`error: ${e.message}\nerror: Could not delete ${head}\n`);
      return 1;
    }
  }
  let branch: string;
  if ('auto' in how) {
    const heads = await remoteHeads(setup, name);
    if (heads.length !== 1) {
      writeStderr(heads.length === 0 ? 'error: Cannot determine remote HEAD\n'
        : `error: Multiple remote HEAD branches. Please choose one explicitly with:\n${heads.map((h) => `  git remote set-head ${name} ${h}\n`).join('')}`);
      return 1;
    }
    branch = heads[0]!;
  } else {
    branch = how.branch;
  }
  const target = `refs/remotes/${name}/${branch}`;
  if (refs.resolve(target) === null) {
    writeStderr(`error: Not a valid ref: ${target}\n`);
    return 1;
  }
  try {
    refs.setSymbolic(head, target, { reflogMessage: 'remote set-head' });
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    writeStderr(`error: ${e.message}\nerror: Could not setup ${head}\n`);
    return 1;
  }
  if ('auto' in how) {
    const out = new Output();
    out.text(`${name}/HEAD set to ${branch}\n`);
    out.flush();
  }
  return 0;
}

/**
 * The branches the remote's HEAD may be, as git's get_head_names guesses them: the one HEAD names
 * (protocol v2 and the v0 symref capability say), else every branch at HEAD's commit.
 */
async function remoteHeads(setup: RemoteSetup, name: string): Promise<string[]> {
  const refs = await remoteRefs(setup, name);
  const head = refs.find((r) => r.name === 'HEAD');
  if (!head) return [];
  const branches = refs.filter((r) => r.name.startsWith('refs/heads/'));
  const picked = head.symrefTarget !== undefined ? branches.filter((r) => r.name === head.symrefTarget)
    : branches.filter((r) => r.oid === head.oid);
  return picked.map((r) => r.name.slice('refs/heads/'.length));
}

/** Every ref the remote `name` (or the address it stands for) advertises, as git's transport_get_remote_refs. */
export async function remoteRefs(setup: RemoteSetup, name: string): Promise<RemoteRef[]> {
  const { config, ctx } = setup;
  const remote = remoteGet(config, setup.repo.commonDir, name);
  const url = remote.urls[0]!;
  checkProtocolAllowed(config, ctx.env, parseRemoteUrl(url, ctx.setupDir()));
  return lsRemote(url, {
    ...connectOptionsFromConfig(config, ctx.env), cwd: ctx.setupDir(),
    ...(remote.uploadPack !== null ? { uploadPack: remote.uploadPack } : {}),
  });
}
