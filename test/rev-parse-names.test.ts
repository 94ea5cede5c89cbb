// rev-parse as scripts call it for names and places, against git: --short[=<n>] (core.abbrev),
// --abbrev-ref[=strict|loose] and --symbolic-full-name (a branch, a detached HEAD, a remote's HEAD,
// a name both a branch and a tag have, ranges and exclusions, a revision that is no ref),
// <branch>@{upstream} (and git's errors when there is none), <ref>@{<n>} (an empty reflog too), @{-<n>}, --show-prefix and --show-cdup from the
// top and from below it, and an argument that is no revision: printed, then an error unless a file
// of that name exists.
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, rmrf, tmpDir } from './helpers.js';
import { assertSameAsGit } from './cli-batch.js';

describe('rev-parse names', () => {
  let work: string;
  let wt: string;
  before(() => {
    work = tmpDir();
    const src = path.join(work, 'src');
    git(work, ['init', '-q', '-b', 'main', src]);
    for (const m of ['one', 'two', 'three']) git(src, ['commit', '-q', '--allow-empty', '-m', m]);
    git(src, ['tag', 'v1']);
    git(src, ['tag', '-a', '-m', 'annotated', 'v2', 'HEAD~1']);
    git(src, ['branch', 'side', 'HEAD~2']);
    wt = path.join(work, 'wt');
    git(work, ['clone', '-q', src, wt]);
    git(wt, ['branch', 'feature', 'HEAD~1']);
    git(wt, ['tag', 'side', 'HEAD']);
    // A name that is a branch and a tag: abbreviated, the branch keeps "heads/".
    git(wt, ['branch', 'both', 'HEAD~2']);
    git(wt, ['tag', 'both', 'HEAD']);
    // A branch named as a remote-tracking branch is: strict and loose shortening differ.
    git(wt, ['branch', 'origin/side', 'HEAD']);
    fs.mkdirSync(path.join(wt, 'd', 'e'), { recursive: true });
    fs.writeFileSync(path.join(wt, 'afile'), '');
  });
  after(() => rmrf(work));

  /** `rev-parse <args>` in each [cwd, args], run in tsgit (one batch) and git, compared. */
  const compareAll = (lines: Array<[string, string[]]>, spawnSome = true): void =>
    assertSameAsGit(lines.map(([cwd, args]) => ({ cwd, args: ['rev-parse', ...args] })), { stderr: 'always', spawnSome });
  /** One command line, between changes to the repository: its batch of one is its own process. */
  const compare = (cwd: string, args: string[]): void => compareAll([[cwd, args]], false);

  it('--short, --abbrev-ref and --symbolic-full-name as git shows them', () => {
    const cases = [
      ['--short', 'HEAD'], ['--short=10', 'HEAD'], ['--short=2', 'v2'], ['--short=99', 'HEAD'], ['--short'], ['--short', 'HEAD', 'v1'],
      ['--abbrev-ref', 'HEAD'], ['--abbrev-ref', 'origin/main'], ['--abbrev-ref', 'origin/HEAD'], ['--abbrev-ref', 'feature'],
      ['--abbrev-ref=loose', 'heads/feature'], ['--abbrev-ref=strict', 'heads/feature'], ['--abbrev-ref=nope', 'HEAD'],
      ['--abbrev-ref', 'side'], ['--abbrev-ref', 'heads/side'], ['--symbolic-full-name', 'side'], ['--symbolic-full-name', 'heads/side'],
      ['--symbolic-full-name', 'HEAD'], ['--symbolic-full-name', 'origin/HEAD'], ['--symbolic-full-name', 'v2'],
      ['--symbolic-full-name', 'HEAD~1'], ['--symbolic-full-name', 'feature..HEAD'], ['--abbrev-ref', '^feature'],
      ['--abbrev-ref', 'HEAD', 'feature'], ['--abbrev-ref', 'both'], ['--abbrev-ref', 'heads/both'], ['--abbrev-ref=loose', 'heads/both'],
      ['--abbrev-ref', 'tags/both'], ['--symbolic-full-name', 'both'],
      ['--abbrev-ref', 'heads/origin/side'], ['--abbrev-ref=loose', 'heads/origin/side'], ['--abbrev-ref=strict', 'heads/origin/side'],
      ['nothere'], ['afile'], ['HEAD', 'afile'], ['^nothere'], ['-q', 'nothere'], ['--verify', '-q', 'nothere'], ['HEAD~9'],
    ];
    compareAll(cases.map((args) => [wt, args]));
    // git warns of a name both a branch and a tag have wherever it resolves one, unless told not to.
    compare(wt, ['both']);
    git(wt, ['config', 'core.warnAmbiguousRefs', 'false']);
    compare(wt, ['both']);
    git(wt, ['config', '--unset', 'core.warnAmbiguousRefs']);
    git(wt, ['config', 'core.abbrev', '12']);
    compare(wt, ['--short', 'HEAD']);
    git(wt, ['config', '--unset', 'core.abbrev']);
    git(wt, ['checkout', '-q', '--detach']);
    compare(wt, ['--abbrev-ref', 'HEAD']);
    compare(wt, ['--symbolic-full-name', 'HEAD']);
    git(wt, ['checkout', '-q', 'main']);
  });

  it('<branch>@{upstream} as git finds it, and why there is none', () => {
    git(wt, ['config', 'branch.feature.remote', '.']);
    git(wt, ['config', 'branch.feature.merge', 'refs/heads/main']);
    git(wt, ['branch', 'nomerge', 'HEAD']);
    const cases = [
      ['@{u}'], ['@{upstream}'], ['@{UPSTREAM}'], ['main@{u}'], ['HEAD@{u}'], ['feature@{u}'], ['@{u}~1'], ['main@{u}^{tree}'],
      ['--symbolic-full-name', '@{u}'], ['--abbrev-ref', '@{u}'], ['--abbrev-ref', '--symbolic-full-name', '@{u}'],
      ['--symbolic-full-name', 'feature@{upstream}'], ['--verify', 'main@{u}'],
      ['nomerge@{u}'], ['nosuch@{u}'], ['--verify', '-q', 'nomerge@{u}'],
    ];
    compareAll(cases.map((args) => [wt, args]));
    // An upstream no fetch refspec stores, and a detached HEAD.
    git(wt, ['config', 'remote.origin.fetch', '+refs/heads/side:refs/remotes/origin/side']);
    compare(wt, ['@{u}']);
    git(wt, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
    git(wt, ['checkout', '-q', '--detach']);
    compare(wt, ['@{u}']);
    git(wt, ['checkout', '-q', 'main']);
    // git's remote_find_tracking: no abbreviated source, and a `^` refspec that hides the branch
    // from an exact refspec or a pattern onto its own name, but not from refs/heads/*:refs/remotes/origin/*.
    for (const fetch of [
      ['+main:refs/remotes/origin/main'], ['+refs/heads/*:refs/remotes/origin/*', '^refs/heads/main'],
      ['+refs/heads/main:refs/remotes/origin/main', '^refs/heads/main'], ['+refs/heads/*:refs/heads/*', '^refs/heads/main'],
      ['^refs/heads/main', '+refs/heads/*:refs/remotes/origin/*'], ['+refs/heads/*:refs/remotes/origin/*', '^refs/heads/m*'],
    ]) {
      git(wt, ['config', '--unset-all', 'remote.origin.fetch']);
      for (const spec of fetch) git(wt, ['config', '--add', 'remote.origin.fetch', spec]);
      compare(wt, ['--symbolic-full-name', '@{u}']);
    }
    git(wt, ['config', '--replace-all', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
  });

  it('<ref>@{<n>} and @{-<n>} by the reflogs, and a reflog too short or missing', () => {
    git(wt, ['checkout', '-q', '-b', 'moving', 'main']);
    for (const m of ['m1', 'm2']) git(wt, ['commit', '-q', '--allow-empty', '-m', m]);
    git(wt, ['checkout', '-q', 'feature']);
    git(wt, ['checkout', '-q', 'moving']);
    const cases = [
      ['moving@{0}'], ['moving@{1}'], ['moving@{2}'], ['moving@{3}'], ['@{0}'], ['@{1}'], ['@{2}'], ['HEAD@{0}'], ['HEAD@{1}'], ['HEAD@{4}'],
      ['HEAD@{99}'], ['heads/moving@{1}'], ['moving@{01}'], ['moving@{1}~1'], ['v1@{0}'], ['origin/main@{0}'], ['nosuch@{0}'],
      ['--verify', '-q', 'moving@{9}'], ['--verify', 'moving@{9}'], ['--short', 'moving@{1}'], ['--symbolic-full-name', 'moving@{1}'],
      // The branches checked out before: feature, then moving, then main (the clone's).
      ['@{-1}'], ['@{-2}'], ['@{-3}'], ['@{-9}'], ['@{-1}~1'], ['--symbolic-full-name', '@{-1}'], ['--abbrev-ref', '@{-2}'],
    ];
    compareAll(cases.map((args) => [wt, args]));
    git(wt, ['checkout', '-q', 'main']);
  });

  it('an empty reflog is a reflog: @{0} is the ref, an older entry git\'s error; so is a branch checked out without one', () => {
    git(wt, ['branch', 'emptied', 'main~1']);
    fs.writeFileSync(path.join(wt, '.git', 'logs', 'refs', 'heads', 'emptied'), '');
    git(wt, ['branch', 'unlogged', 'main~1']);
    fs.rmSync(path.join(wt, '.git', 'logs', 'refs', 'heads', 'unlogged'));
    // HEAD on unlogged (the index and files stay main's; rev-parse reads neither).
    git(wt, ['symbolic-ref', 'HEAD', 'refs/heads/unlogged']);
    const cases = [
      ['emptied@{0}'], ['emptied@{1}'], ['emptied@{now}'], ['--verify', '-q', 'emptied@{1}'], ['unlogged@{0}'], ['main@{-1}'],
      ['@{0}'], ['@{1}'], ['@{yesterday}'],
    ];
    // The batch alone: other cases run the CLI spawned too.
    compareAll(cases.map((args) => [wt, args]), false);
    git(wt, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  });

  it('--show-prefix and --show-cdup at the top and below it', () => {
    compareAll([wt, path.join(wt, 'd'), path.join(wt, 'd', 'e')]
      .flatMap((cwd): Array<[string, string[]]> => [[cwd, ['--show-prefix']], [cwd, ['--show-cdup']], [cwd, ['--show-cdup', '--show-prefix', 'HEAD']]]));
  });
});
