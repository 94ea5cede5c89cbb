// `tsgit remote rename` and `remove`, as git 2.39's builtin/remote.c mv() and rm(): the config
// section renamed or removed (config/rename-section.ts under config.lock), the fetch refspecs moved
// to the new name, branch.<x>.remote and .pushRemote followed, remote-tracking refs renamed with
// their reflogs or deleted, and remote.pushDefault kept pointing at the remote.
import fs from 'node:fs';
import path from 'node:path';
import { configuredRemotes, validRemoteName, type Remote } from '../repository/remotes.js';
import { displayName } from '../config/config.js';
import { renameSectionInFile } from '../config/rename-section.js';
import { GitError } from '../core/errors.js';
import { parseRefspec, trackedSourcesFor } from '../refs/refspec.js';
import { errnoText } from '../core/errno-text.js';
import { setMultivar, setMultivarGently } from './config-multivar.js';
import { fatal } from './context.js';
import { writeStderr } from './output.js';
import { progressIf } from './progress.js';
import { findRemoteIn, remoteNamed, type RemoteSetup } from './remote-edit.js';

/** `remote rename [--[no-]progress] <old> <new>`. */
export function renameRemote(setup: RemoteSetup, oldName: string, newName: string, progress: boolean): number {
  const old = remoteNamed(setup, oldName, true);
  if (oldName === newName && (old.origin === 'remotes' || old.origin === 'branches')) return migrateFile(setup, old, old.origin);
  if (findRemoteIn(setup, newName)) {
    writeStderr(`error: remote ${newName} already exists.\n`);
    return 3;
  }
  if (!validRemoteName(newName)) throw fatal(`'${newName}' is not a valid remote name`);
  if (renameSectionInFile(setup.file, `remote.${oldName}`, `remote.${newName}`) < 1) {
    writeStderr(`error: Could not rename config section 'remote.${oldName}' to 'remote.${newName}'\n`);
    return 1;
  }
  const key = `remote.${newName}.fetch`;
  if (old.fetch.length > 0) setMultivar(setup.file, { key, value: null, all: true });
  const context = `:refs/remotes/${oldName}/`;
  let refspecUpdated = false;
  for (let refspec of old.fetch) {
    const at = refspec.indexOf(context);
    if (at >= 0) {
      refspecUpdated = true;
      const from = at + ':refs/remotes/'.length;
      refspec = refspec.slice(0, from) + newName + refspec.slice(from + oldName.length);
    } else {
      writeStderr(`warning: Not updating non-default fetch refspec\n\t${refspec}\n\tPlease update the configuration manually if necessary.\n`);
    }
    setMultivar(setup.file, { key, value: refspec, pattern: '^$' });
  }
  for (const [branch, info] of branchRemotes(setup)) {
    if (info.remote === oldName) setMultivar(setup.file, { key: `branch.${branch}.remote`, value: newName });
    if (info.pushRemote === oldName) setMultivar(setup.file, { key: `branch.${branch}.pushRemote`, value: newName });
  }
  if (!refspecUpdated) return 0;
  renameTrackingRefs(setup, oldName, newName, progress);
  handlePushDefault(setup, oldName, newName);
  return 0;
}

/** git's migrate_file: a remotes/ or branches/ file's remote written into the config, and the file removed. */
function migrateFile(setup: RemoteSetup, remote: Remote, origin: 'remotes' | 'branches'): number {
  // git writes the URLs as it read them, insteadOf applied.
  for (const [key, values] of [['url', remote.urls], ['push', remote.push], ['fetch', remote.fetch]] as const) {
    for (const value of values) setMultivar(setup.file, { key: `remote.${remote.name}.${key}`, value, pattern: '^$' });
  }
  const file = path.join(setup.repo.commonDir, origin, remote.name);
  try {
    fs.unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') writeStderr(`warning: unable to unlink '${file}': ${errnoText(e)}\n`);
  }
  return 0;
}

/**
 * refs/remotes/<old>/* to refs/remotes/<new>/*, as git's mv: symbolic refs deleted first, the
 * others renamed (reflogs along), then the symbolic refs made again, pointing at the new names.
 */
function renameTrackingRefs(setup: RemoteSetup, oldName: string, newName: string, progress: boolean): void {
  const refs = setup.repo.openRefs(setup.ctx.env, setup.config);
  const tracking = refs.list(`refs/remotes/${oldName}/`);
  const symbolic = tracking.filter((r) => r.symref !== undefined);
  // git splices the new name in at the same place of every name, the symbolic refs' targets too.
  const renamed = (name: string) => name.slice(0, 'refs/remotes/'.length) + newName + name.slice('refs/remotes/'.length + oldName.length);
  // Symbolic refs count twice: deleted, then made again.
  const meter = progressIf(progress)?.('Renaming remote references', tracking.length + symbolic.length);
  let done = 0;
  for (const r of symbolic) {
    if (!refs.delete(r.name, { noDeref: true })) throw fatal(`deleting '${r.name}' failed`);
    meter?.update(++done);
  }
  for (const r of tracking) {
    if (r.symref !== undefined) continue;
    try {
      refs.rename(r.name, renamed(r.name), `remote: renamed ${r.name} to ${renamed(r.name)}`);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      writeStderr(`error: ${e.message}\n`);
      throw fatal(`renaming '${r.name}' failed`);
    }
    meter?.update(++done);
  }
  for (const r of symbolic) {
    try {
      refs.setSymbolic(renamed(r.name), renamed(r.symref!), { reflogMessage: `remote: renamed ${r.name} to ${renamed(r.name)}` });
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      throw fatal(`creating '${renamed(r.name)}' failed`);
    }
    meter?.update(++done);
  }
  meter?.stop();
}

/** `remote remove <name>` (and `rm`). */
export function removeRemote(setup: RemoteSetup, name: string): number {
  const remote = remoteNamed(setup, name, true);
  const others = configuredRemotes(setup.config).filter((r) => r.name !== name).map((r) => r.fetch.map(parseRefspec));
  for (const [branch, info] of branchRemotes(setup)) {
    // Where there is nothing to unset (or several values), git goes on as here.
    if (info.remote === name) {
      for (const key of ['remote', 'merge']) setMultivarGently(setup.file, { key: `branch.${branch}.${key}`, value: null });
    }
    if (info.pushRemote === name) setMultivarGently(setup.file, { key: `branch.${branch}.pushremote`, value: null });
  }
  const specs = remote.fetch.map(parseRefspec);
  const refs = setup.repo.openRefs(setup.ctx.env, setup.config);
  const deleting: string[] = [];
  const skipped: string[] = [];
  for (const r of refs.list('refs/')) {
    if (trackedSourcesFor(specs, r.name).length === 0) continue;
    // Not a ref another remote also tracks.
    if (others.some((s) => trackedSourcesFor(s, r.name).length > 0)) continue;
    if (r.name.startsWith('refs/remotes/')) deleting.push(r.name);
    else if (r.name.startsWith('refs/heads/')) skipped.push(r.name.slice('refs/heads/'.length));
  }
  let result = 0;
  for (const ref of deleting) {
    try {
      refs.delete(ref, { noDeref: true });
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      writeStderr(`error: ${e.message}\n`);
      result = 1;
    }
  }
  if (skipped.length > 0) {
    writeStderr(skipped.length === 1
      ? 'Note: A branch outside the refs/remotes/ hierarchy was not removed;\nto delete it, use:\n'
      : 'Note: Some branches outside the refs/remotes/ hierarchy were not removed;\nto delete them, use:\n');
    for (const b of skipped) writeStderr(`  git branch -d ${b}\n`);
  }
  if (result === 0) {
    if (renameSectionInFile(setup.file, `remote.${name}`, null) < 1) {
      writeStderr(`error: Could not remove config section 'remote.${name}'\n`);
      return 1;
    }
    handlePushDefault(setup, name, null);
  }
  return result;
}

/** branch.<x>.remote and .pushRemote of every branch, by branch name in byte order (git's read_branches). */
function branchRemotes(setup: RemoteSetup): [string, { remote?: string; pushRemote?: string }][] {
  const branches = new Map<string, { remote?: string; pushRemote?: string }>();
  for (const e of setup.config.list()) {
    if (e.section !== 'branch' || e.subsection === null || (e.key !== 'remote' && e.key !== 'pushremote')) continue;
    const info = branches.get(e.subsection) ?? {};
    branches.set(e.subsection, info);
    const field = e.key === 'remote' ? 'remote' : 'pushRemote';
    if (info[field] !== undefined) writeStderr(`warning: more than one ${displayName(e)}\n`);
    info[field] = e.value ?? '';
  }
  return [...branches].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * git's handle_push_default: remote.pushDefault naming the old remote follows it (or is removed)
 * when the repository's config sets it; set in a global or system file, it is warned of.
 */
function handlePushDefault(setup: RemoteSetup, oldName: string, newName: string | null): void {
  const e = setup.config.list().filter((x) => x.section === 'remote' && x.subsection === null && x.key === 'pushdefault' && x.value === oldName).at(-1);
  if (!e || e.scope === 'command') return;
  if (e.scope === 'local' || e.scope === 'worktree') {
    setMultivarGently(setup.file, { key: 'remote.pushDefault', value: newName });
    return;
  }
  writeStderr(`warning: The ${e.scope} configuration remote.pushDefault in:\n\t${e.file}:${e.line}\nnow names the non-existent remote '${oldName}'\n`);
}
