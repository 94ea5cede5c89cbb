// ls-tree's paths, as git's: relative to the current directory below the top of the work tree
// (which, with no path, is what is listed), names printed relative to it unless --full-name, and
// --full-tree to take both from the top. git, run in the same directory, is the oracle: stdout,
// stderr's fatal line and the exit status, byte for byte. tsgit's command lines run in one process
// (tsgitBatch), a few of them spawned as well.
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { git, rmrf, tmpDir } from './helpers.js';
import { assertSameAsGit } from './cli-batch.js';

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

  /** The command lines, each `ls-tree <args>` in `rel` below the top, run in tsgit (one batch) and git, compared. */
  const compareAll = (lines: Array<[string, string[]]>): void =>
    assertSameAsGit(lines.map(([rel, args]) => ({ cwd: path.join(repo, rel), args: ['ls-tree', ...args] })), { stderr: 'on-failure', spawnSome: true });

  const pathSets = [[], ['.'], ['a.txt'], ['deep'], ['deep/'], ['deep/deeper/y.txt'], ['..'], ['../'], ['../sub2'],
    ['../sub'], ['../sub/'], ['../top.txt', 'a.txt'], ['./deep//x.txt'], ['mod'], ['mod/'], ['missing'], ['../../..'],
    ['deep/..'], ['../subx.txt'], ['x.txt'], ['deeper'], ['../sub/deep/deeper']];
  const optionSets = [[], ['-r'], ['-t'], ['-r', '-t'], ['-d'], ['-d', '-r'], ['--name-only'], ['--full-name'],
    ['--full-tree'], ['-r', '--full-name'], ['--full-tree', '-r', '--name-only'], ['-z'], ['-z', '--name-only']];

  test('from a subdirectory: each path, each option', () => {
    const lines: Array<[string, string[]]> = [];
    for (const opts of [[], ['-r']]) for (const paths of pathSets) lines.push(['sub', [...opts, 'HEAD', ...paths]]);
    for (const opts of optionSets) for (const paths of [[], ['..'], ['../sub2', 'deep/']]) lines.push(['sub', [...opts, 'HEAD', ...paths]]);
    compareAll(lines);
  });

  test('from a nested subdirectory and from the top', () => {
    const lines: Array<[string, string[]]> = [];
    for (const rel of ['sub/deep', 'sub/deep/deeper', '']) {
      for (const opts of [[], ['-r', '-t'], ['--full-name'], ['--full-tree', '-d']]) {
        for (const paths of [[], ['..'], ['../..', 'x.txt'], ['sub/deep']]) lines.push([rel, [...opts, 'HEAD', ...paths]]);
      }
    }
    compareAll(lines);
  });

  test('absolute paths: inside the work tree, and outside it', () => {
    compareAll([['sub', ['HEAD', path.join(repo, 'sub', 'deep')]], ['sub', ['HEAD', `${path.join(repo, 'sub', 'deep')}/`]], ['sub', ['HEAD', root]]]);
  });
});
