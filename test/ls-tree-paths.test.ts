// ls-tree's paths, as git's: relative to the current directory below the top of the work tree
// (which, with no path, is what is listed), names printed relative to it unless --full-name, and
// --full-tree to take both from the top. git, run in the same directory, is the oracle: stdout,
// stderr's fatal line and the exit status, byte for byte.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, tsgit } from './helpers.js';

describe('ls-tree paths below the top of the work tree', () => {
  let root: string, repo: string;

  before(() => {
    root = fs.realpathSync(tmpDir('tsgit-ls-tree-paths-'));
    repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    git(repo, ['init', '-q', '-b', 'main']);
    const files = ['top.txt', 'sub/a.txt', 'sub/a b.txt', 'sub/caf\u00e9.txt', 'sub/deep/x.txt', 'sub/deep/deeper/y.txt',
      'sub2/z.txt', 'subx.txt'];
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
      fs.writeFileSync(path.join(repo, f), `${f}\n`);
    }
    git(repo, ['add', '.']);
    // A submodule's gitlink inside the subdirectory (shown as a commit, never gone into).
    git(repo, ['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub/mod`]);
    git(repo, ['commit', '-q', '-m', 'tree']);
  });
  after(() => rmrf(root));

  const compare = (rel: string, args: string[]): void => {
    const cwd = path.join(repo, rel);
    const ours = tsgit(cwd, ['ls-tree', ...args]);
    const theirs = spawnSync('git', ['ls-tree', ...args], { cwd, env: GIT_ENV });
    const what = `ls-tree ${args.join(' ')} in ${rel || '.'}`;
    assert.equal(ours.status, theirs.status, `${what}: status (${ours.stderr})`);
    assert.equal(ours.stdout.toString('latin1'), theirs.stdout.toString('latin1'), what);
    if (theirs.status !== 0) assert.equal(ours.stderr.toString(), theirs.stderr.toString(), `${what}: stderr`);
  };

  const pathSets = [[], ['.'], ['a.txt'], ['deep'], ['deep/'], ['deep/deeper/y.txt'], ['..'], ['../'], ['../sub2'],
    ['../sub'], ['../sub/'], ['../top.txt', 'a.txt'], ['./deep//x.txt'], ['mod'], ['mod/'], ['missing'], ['../../..'],
    ['deep/..'], ['../subx.txt'], ['x.txt'], ['deeper'], ['../sub/deep/deeper']];
  const optionSets = [[], ['-r'], ['-t'], ['-r', '-t'], ['-d'], ['-d', '-r'], ['--name-only'], ['--full-name'],
    ['--full-tree'], ['-r', '--full-name'], ['--full-tree', '-r', '--name-only'], ['-z'], ['-z', '--name-only']];

  test('from a subdirectory: each path, each option', () => {
    for (const opts of [[], ['-r']]) for (const paths of pathSets) compare('sub', [...opts, 'HEAD', ...paths]);
    for (const opts of optionSets) for (const paths of [[], ['..'], ['../sub2', 'deep/']]) compare('sub', [...opts, 'HEAD', ...paths]);
  });

  test('from a nested subdirectory and from the top', () => {
    for (const rel of ['sub/deep', 'sub/deep/deeper', '']) {
      for (const opts of [[], ['-r', '-t'], ['--full-name'], ['--full-tree', '-d']]) {
        for (const paths of [[], ['..'], ['../..', 'x.txt'], ['sub/deep']]) compare(rel, [...opts, 'HEAD', ...paths]);
      }
    }
  });

  test('absolute paths: inside the work tree, and outside it', () => {
    compare('sub', ['HEAD', path.join(repo, 'sub', 'deep')]);
    compare('sub', ['HEAD', `${path.join(repo, 'sub', 'deep')}/`]);
    compare('sub', ['HEAD', root]);
  });
});
