// `<branch>@{push}` and `<ref>@{<date>}` against git rev-parse: the remote-tracking ref a push
// would update under each push.default, with branch.<name>.pushRemote, remote.pushDefault, push
// refspecs and mirror remotes, and git's errors when there is none; the value a ref had at a date
// by its reflog (reflog times set with GIT_COMMITTER_DATE), git's warning when the date is before
// the first entry, and `<ref>@{<n>}` at the far end of a reflog, as git's read_ref_at reads it.
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertSameAsGit } from './cli-batch.js';
import { GIT_ENV, git, rmrf, tmpDir } from './helpers.js';

/** `git <args>` in `cwd`, each run in tsgit (one batch) and in git, compared with stderr. */
const compareAll = (cwd: string, lines: string[][], env = GIT_ENV): void =>
  assertSameAsGit(lines.map((args) => ({ cwd, args })), { stderr: 'always', env });

describe('<branch>@{push}', () => {
  let work: string;
  let wt: string;
  before(() => {
    work = tmpDir();
    const up = path.join(work, 'up');
    git(work, ['init', '-q', '-b', 'main', up]);
    git(up, ['commit', '-q', '--allow-empty', '-m', 'one']);
    git(up, ['branch', 'topic']);
    wt = path.join(work, 'wt');
    git(work, ['clone', '-q', up, wt]);
    git(wt, ['remote', 'add', 'other', '../up']);
    git(wt, ['fetch', '-q', 'other']);
    git(wt, ['branch', '-q', '--track', 'topic', 'origin/main']);
    git(wt, ['branch', '-q', '--no-track', 'loose', 'main']);
  });
  after(() => rmrf(work));

  const names = ['@{push}', 'main@{push}', 'HEAD@{push}', 'main@{PUSH}', 'topic@{push}', 'loose@{push}', 'nosuch@{push}', 'other/main@{push}'];
  /** rev-parse of each name, by id and by ref name, with the configuration `config` (-c pairs). */
  const lines = (config: string[], more: string[][] = []): string[][] => [
    ...names.flatMap((name) => [[name], ['--symbolic-full-name', name]]), ...more,
  ].map((args) => [...config.flatMap((c) => ['-c', c]), 'rev-parse', ...args]);

  it('follows push.default: simple, current, matching, upstream (tracking), nothing', () => {
    compareAll(wt, [
      ...lines([], [['--abbrev-ref', '@{push}'], ['--verify', 'main@{push}~0'], ['@{push}^{tree}'], ['--verify', '-q', 'topic@{push}']]),
      ...['current', 'matching', 'upstream', 'tracking', 'nothing', 'simple'].flatMap((mode) => lines([`push.default=${mode}`])),
    ]);
  });

  it('goes to branch.<name>.pushRemote, else remote.pushDefault, and simple refuses two destinations', () => {
    compareAll(wt, [
      ...lines(['branch.main.pushRemote=other']),
      ...lines(['branch.main.pushRemote=other', 'push.default=current']),
      ...lines(['branch.main.pushRemote=other', 'push.default=upstream']),
      ...lines(['remote.pushDefault=other', 'push.default=current']),
      ...lines(['remote.pushDefault=other', 'branch.main.pushRemote=origin', 'push.default=current']),
      // A remote no configuration names is an address, with no fetch refspecs.
      ...lines(['remote.pushDefault=nowhere', 'push.default=current']),
    ]);
  });

  it('maps the branch through the remote\'s push refspecs, and a mirror remote to its own name', () => {
    const other = ['remote.pushDefault=other'];
    compareAll(wt, [
      ...lines([...other, 'remote.other.push=refs/heads/main:refs/heads/topic']),
      ...lines([...other, 'remote.other.push=refs/heads/*:refs/heads/*']),
      ...lines([...other, 'remote.other.push=refs/heads/*:refs/heads/x/*']),
      ...lines([...other, 'remote.other.push=main:refs/heads/topic']),
      ...lines([...other, 'remote.other.push=refs/heads/main']),
      ...lines([...other, 'remote.other.push=:']),
      ...lines([...other, 'remote.other.push=refs/heads/*:refs/heads/*', 'remote.other.push=^refs/heads/main']),
      ...lines([...other, 'remote.other.mirror=true']),
      ...lines([...other, 'remote.other.mirror=true', 'remote.other.fetch=+refs/heads/topic:refs/remotes/other/topic']),
    ]);
  });

  it('a detached HEAD has none', () => {
    git(wt, ['checkout', '-q', '--detach']);
    try {
      compareAll(wt, lines([]));
    } finally {
      git(wt, ['checkout', '-q', 'main']);
    }
  });
});

describe('<ref>@{<date>}', () => {
  let dir: string;
  // Whole days apart, before now, so that git and tsgit read "now" on the same side of each.
  const now = Math.floor(Date.now() / 1000);
  const daysAgo = (n: number): string => `${now - n * 86400} +0200`;
  before(() => {
    dir = tmpDir();
    git(dir, ['init', '-q', '-b', 'main']);
    for (const n of [10, 5, 2]) git(dir, ['commit', '-q', '--allow-empty', '-m', `c${n}`], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: daysAgo(n) });
    git(dir, ['branch', 'side'], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: daysAgo(8) });
    git(dir, ['update-ref', '-m', 'moved', 'refs/heads/side', 'main'], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: daysAgo(4) });
    // A reflog that does not start at the ref's creation: its oldest entry has an old value.
    git(dir, ['update-ref', '--create-reflog', '-m', 'late', 'refs/heads/late', 'main'], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: daysAgo(9) });
    git(dir, ['update-ref', '-m', 'later', 'refs/heads/late', 'main~1'], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: daysAgo(3) });
    git(dir, ['reflog', 'expire', '--expire=all', '--expire-unreachable=all', 'refs/heads/late'], undefined, GIT_ENV);
    git(dir, ['update-ref', '-m', 'latest', 'refs/heads/late', 'main~2'], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: daysAgo(1) });
  });
  after(() => rmrf(dir));

  it('reads the reflog at a relative or absolute date, and warns of one before its first entry', () => {
    const iso = (n: number): string => new Date((now - n * 86400) * 1000).toISOString().replace('T', ' ').slice(0, 16);
    const specs = [
      'main@{yesterday}', 'main@{3.days.ago}', 'main@{3 days ago}', 'main@{3.DAYS.AGO}', 'main@{7.days.ago}', 'main@{1.week.ago}',
      'main@{20.days.ago}', '@{20.days.ago}', 'HEAD@{20.days.ago}', 'heads/main@{2000-01-01}', 'main@{now}', '@{now}',
      `main@{${iso(6)}}`, `main@{${iso(6)} +0000}`, `main@{${now - 6 * 86400}}`, `main@{${now - 2 * 86400}}`, 'main@{2 hours ago}',
      'main@{3.days.ago}~1', 'side@{6.days.ago}', 'side@{3.days.ago}', 'side@{9.days.ago}', 'late@{2.days.ago}', 'late@{20.days.ago}',
      'main@{foo}', 'nosuch@{yesterday}', 'main@{1.month.ago}', 'main@{2.years.ago}',
    ];
    compareAll(dir, [
      ...specs.map((s) => ['rev-parse', s]),
      ['rev-parse', '--verify', 'main@{2000-01-01}'], ['rev-parse', '--verify', '-q', 'main@{2000-01-01}'],
      ['rev-parse', '--symbolic-full-name', 'main@{yesterday}'],
    ], { ...GIT_ENV, TZ: 'America/New_York' });
  });

  it('warns of a reflog with a gap, and of one whose newest entry is not the ref\'s value', () => {
    // gappy is main (c2); its reflog has it made at c10, then moved from c5 to c5.
    const [c2, c5, c10] = ['main', 'main~1', 'main~2'].map((r) => git(dir, ['rev-parse', r]).trim());
    git(dir, ['update-ref', 'refs/heads/gappy', c2!]);
    const line = (from: string, to: string, n: number): string => `${from} ${to} C O Mitter <committer@example.com> ${daysAgo(n)}\tmoved\n`;
    fs.writeFileSync(path.join(dir, '.git', 'logs', 'refs', 'heads', 'gappy'), line('0'.repeat(40), c10!, 10) + line(c5!, c5!, 5));
    compareAll(dir, [['rev-parse', 'gappy@{7.days.ago}'], ['rev-parse', 'gappy@{1.day.ago}'], ['rev-parse', 'gappy@{1}'], ['rev-parse', 'gappy@{20.days.ago}']]);
  });

  it('<ref>@{<n>} at the end of a reflog whose first entry has an old value', () => {
    compareAll(dir, [['rev-parse', 'late@{0}'], ['rev-parse', 'late@{1}'], ['rev-parse', 'late@{2}'], ['rev-parse', 'side@{2}'], ['rev-parse', 'side@{3}']]);
  });
});
