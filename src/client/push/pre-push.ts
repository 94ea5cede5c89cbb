// The pre-push hook, as git's transport.c run_pre_push_hook runs it: once per URL, after the
// remote's refs are matched and each update's fate is decided here, before anything is sent.
// Its arguments are the remote's name (the URL itself when none is configured) and the URL; its
// stdin has a line "<local ref> <local id> <remote ref> <remote id>" for each update that may
// still go (not those up to date, non-fast-forward, or with a stale or unintegrated lease), "(delete)" and the
// zero id for a deletion. It runs in the work tree (the git directory when bare) with the
// environment as it is, its stdout to ours and its stderr to ours, even for --dry-run and when
// there is nothing to push; a non-zero exit stops the push of that URL. git-lfs uploads its
// objects from here, so a push that skipped it would leave the remote without them.
import type { Config } from '../../config/index.js';
import type { Repository } from '../../repository/repository.js';
import { commandHookSettings, findHook, runHookScript } from '../../repository/hook-script.js';
import type { PushRef } from './status.js';

/** Updates the hook is not told of (git's REJECT_NONFASTFORWARD, REJECT_STALE, REJECT_REMOTE_UPDATED, UPTODATE). */
const UNLISTED = new Set(['non-fast-forward', 'stale', 'remote-updated', 'up-to-date']);

/** Runs the hook if there is one; false when it refused the push. */
export async function prePush(repo: Repository, config: Config, env: NodeJS.ProcessEnv, remoteName: string, url: string,
  refs: readonly PushRef[], out: (text: string) => void, log: (text: string) => void): Promise<boolean> {
  const settings = commandHookSettings(repo.commonDir, repo.workTree, config, env);
  const file = findHook(settings, 'pre-push', log);
  if (!file) return true;
  const stdin = refs.filter((r) => !UNLISTED.has(r.status))
    .map((r) => `${r.src ?? '(delete)'} ${r.newOid} ${r.dst} ${r.oldOid}\n`).join('');
  const decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
  const status = await runHookScript(file, settings, { args: [remoteName, url], stdin, env: {} }, (chunk, stream) => {
    (stream === 1 ? out : log)(decoders[stream].decode(chunk, { stream: true }));
  });
  return status === 0;
}
