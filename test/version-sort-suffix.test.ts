// ls-remote --sort=version:refname with pre-release suffixes, against git: versionsort.suffix
// (several, in the configuration's order; one a part of another; one that matches at the
// differing place or ends just before it), the deprecated versionsort.prereleaseSuffix, and git's
// warning when both are set, in a repository and outside one.
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertSameAsGit } from './cli-batch.js';
import { git, rmrf, tmpDir } from './helpers.js';

let work: string;
let repo: string;
before(() => {
  work = tmpDir();
  repo = path.join(work, 'repo');
  git(work, ['init', '-q', '-b', 'main', repo]);
  git(repo, ['commit', '-q', '--allow-empty', '-m', 'c']);
  // Tags from git's t7004 and its versionsort tests, and some of ours.
  for (const tag of ['v1.0', 'v1.0-rc1', 'v1.0-rc2', 'v1.0-beta1', 'v1.0-pre1', 'v1.0.1', 'v2.0', 'v2.0-rc1', 'v2.0-bar', 'v2.0-foo-bar',
    'v2.0-foo', 'v2.0-foo-baz', 'v3.0-rc', 'v3.0', 'v3.0.1', 'v4.0-RC1', 'v4.0', 'foo1.0', 'foo1.0-rc', 'foo1.10-bar', 'foo1.2']) {
    git(repo, ['tag', tag]);
  }
  git(repo, ['tag', '-a', '-m', 'annotated', 'v5.0-rc1']);
  git(repo, ['tag', 'v5.0']);
});
after(() => rmrf(work));

test('--sort=version:refname puts pre-release suffixes first, in versionsort.suffix\'s order', () => {
  const configs = [
    [], ['versionsort.suffix=-rc'], ['versionsort.suffix=-rc', 'versionsort.suffix=-beta', 'versionsort.suffix=-pre'],
    ['versionsort.suffix=-pre', 'versionsort.suffix=-beta', 'versionsort.suffix=-rc'],
    ['versionsort.suffix=-bar', 'versionsort.suffix=-foo-baz', 'versionsort.suffix=-foo-bar'],
    ['versionsort.suffix=-foo-bar', 'versionsort.suffix=-bar'], ['versionsort.suffix=.', 'versionsort.suffix=-'],
    ['versionsort.suffix=-RC'], ['versionsort.suffix=rc'], ['versionsort.suffix='], ['versionsort.suffix=-rc', 'versionsort.suffix=-rc'],
    ['versionsort.prereleaseSuffix=-rc'], ['versionsort.prereleaseSuffix=-beta', 'versionsort.suffix=-rc'],
  ];
  // Outside a repository: the command line's configuration (and the global) still counts.
  const lines = configs.flatMap((config) => [['--sort=version:refname', '--tags'], ['--sort=-v:refname', '--refs']]
    .map((args) => [...config.flatMap((c) => ['-c', c]), 'ls-remote', ...args, repo]));
  assertSameAsGit(lines.map((args) => ({ cwd: work, args })), { stderr: 'always' });
});

test('the suffixes come from the repository\'s own configuration', () => {
  git(repo, ['config', '--add', 'versionsort.suffix', '-beta']);
  git(repo, ['config', '--add', 'versionsort.suffix', '-rc']);
  git(repo, ['config', 'versionsort.prereleaseSuffix', '-pre']);
  try {
    assertSameAsGit([['ls-remote', '--sort=version:refname', '.'], ['ls-remote', '--sort=v:refname', '.', 'v1*'], ['ls-remote', '--sort=v:refname', '.', 'v9*']]
      .map((args) => ({ cwd: repo, args })), { stderr: 'always' });
  } finally {
    git(repo, ['config', '--remove-section', 'versionsort']);
  }
});
