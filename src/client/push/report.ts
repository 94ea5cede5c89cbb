// What `git push` prints about each ref (transport.c print_push_status): "To <url>", then the
// updated refs, then the failed ones, each as
//    * [new branch]      main -> main
//      1234567..89abcde  main -> main
//    + 1234567...89abcde main -> main (forced update)
//    - [deleted]         side
//    ! [rejected]        main -> main (non-fast-forward)
//    ! [remote rejected] main -> main (hook declined)
// (up-to-date refs only with -v), on stderr; with --porcelain, on stdout as
// "<flag>\t<src>:<dst>\t<summary>" with every ref, and "Done" once the push itself went through.
// Then git's advice for the rejections.
import { ZERO_HEX } from '../../core/oid.js';
import { prettifyRefName } from '../fetch-report.js';
import type { PushRef, PushStatus } from './status.js';

const REASONS: Partial<Record<PushStatus, string>> = {
  'non-fast-forward': 'non-fast-forward',
  'already-exists': 'already exists',
  'fetch-first': 'fetch first',
  'needs-force': 'needs force',
  stale: 'stale info',
  'remote-updated': 'remote ref updated since checkout',
  'atomic-failed': 'atomic push failed',
};

function line(flag: string, summary: string, ref: PushRef, from: string | null, msg: string | null, porcelain: boolean, width: number): string {
  if (porcelain) return `${flag}\t${from === null ? '' : from}:${ref.dst}\t${summary}${msg ? ` (${msg})` : ''}\n`;
  const names = from === null ? prettifyRefName(ref.dst) : `${prettifyRefName(from)} -> ${prettifyRefName(ref.dst)}`;
  return ` ${flag} ${summary.padEnd(width)} ${names}${msg ? ` (${msg})` : ''}\n`;
}

function one(ref: PushRef, porcelain: boolean, width: number, abbrev: number): string {
  const from = ref.src;
  const deletion = ref.newOid === ZERO_HEX;
  switch (ref.status) {
    case 'up-to-date': return line('=', '[up to date]', ref, from, null, porcelain, width);
    case 'no-delete': return line('!', '[rejected]', ref, null, 'remote does not support deleting refs', porcelain, width);
    case 'remote-rejected': return line('!', '[remote rejected]', ref, deletion ? null : from, ref.remoteMessage, porcelain, width);
    case 'expecting-report': return line('!', '[remote failure]', ref, deletion ? null : from, 'remote failed to report status', porcelain, width);
    case 'ok': {
      if (deletion) return line('-', '[deleted]', ref, null, null, porcelain, width);
      if (ref.oldOid === ZERO_HEX) return line('*', ref.dst.startsWith('refs/tags/') ? '[new tag]' : ref.dst.startsWith('refs/heads/') ? '[new branch]' : '[new reference]', ref, from, null, porcelain, width);
      const range = `${ref.oldOid.slice(0, abbrev)}${ref.forcedUpdate ? '...' : '..'}${ref.newOid.slice(0, abbrev)}`;
      return line(ref.forcedUpdate ? '+' : ' ', range, ref, from, ref.forcedUpdate ? 'forced update' : null, porcelain, width);
    }
    default: return line('!', '[rejected]', ref, from, REASONS[ref.status] ?? null, porcelain, width);
  }
}

/** The per-ref lines, in git's order; empty when there is nothing to say. */
export function formatPushStatus(url: string, refs: readonly PushRef[], o: { porcelain: boolean; verbose: boolean; abbrev: number }): string {
  const width = 2 * o.abbrev + 3;
  const shown = [
    ...(o.verbose || o.porcelain ? refs.filter((r) => r.status === 'up-to-date') : []),
    ...refs.filter((r) => r.status === 'ok'),
    ...refs.filter((r) => r.status !== 'ok' && r.status !== 'up-to-date' && r.status !== 'pending'),
  ];
  if (shown.length === 0) return '';
  return `To ${url}\n${shown.map((r) => one(r, o.porcelain, width, o.abbrev)).join('')}`;
}

/** git's advice after a failed push, for the reasons among `refs` (the current branch's name decides the non-ff text). */
export function pushAdvice(refs: readonly PushRef[], currentBranch: string | null): string {
  const has = (s: PushStatus) => refs.some((r) => r.status === s);
  const hint = (text: string) => text.split('\n').map((l) => `hint: ${l}`).join('\n') + '\n';
  if (refs.some((r) => r.status === 'non-fast-forward' && r.dst === currentBranch)) {
    return hint(`Updates were rejected because the tip of your current branch is behind
its remote counterpart. Integrate the remote changes (e.g.
'git pull ...') before pushing again.
See the 'Note about fast-forwards' in 'git push --help' for details.`);
  }
  if (has('non-fast-forward')) {
    return hint(`Updates were rejected because a pushed branch tip is behind its remote
counterpart. Check out this branch and integrate the remote changes
(e.g. 'git pull ...') before pushing again.
See the 'Note about fast-forwards' in 'git push --help' for details.`);
  }
  if (has('already-exists')) return hint('Updates were rejected because the tag already exists in the remote.');
  if (has('fetch-first')) {
    return hint(`Updates were rejected because the remote contains work that you do
not have locally. This is usually caused by another repository pushing
to the same ref. You may want to first integrate the remote changes
(e.g., 'git pull ...') before pushing again.
See the 'Note about fast-forwards' in 'git push --help' for details.`);
  }
  if (has('needs-force')) {
    return hint(`You cannot update a remote ref that points at a non-commit object,
or update a remote ref to make it point at a non-commit object,
without using the '--force' option.`);
  }
  if (has('remote-updated')) {
    return hint(`Updates were rejected because the tip of the remote-tracking
branch has been updated since the last checkout. You may want
to integrate those changes locally (e.g., 'git pull ...')
before forcing an update.`);
  }
  return '';
}
