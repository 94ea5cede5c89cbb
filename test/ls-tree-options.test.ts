// ls-tree's output options, as git 2.39's: -l/--long (sizes, padded), --abbrev[=<n>] (unique
// abbreviations), --format (its atoms, %%, %n and %xNN, its errors), --object-only, the conflicts
// between them, `--` before paths, and the pathspec magic ls-tree takes (:(top), :/, :(literal))
// or refuses. git, run in the same directory of the same repository, is the oracle: exit status,
// stdout byte for byte, and stderr on errors (its first line for usage errors, whose usage text
// names git). The command lines run in one tsgit process (tsgitBatch); some are also spawned.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, tsgit } from './helpers.js';
import { assertSameAsGit } from './cli-batch.js';

describe('ls-tree output options and pathspec magic', () => {
  let root: string, repo: string;
  let blobA: string;

  before(() => {
    root = fs.realpathSync(tmpDir('tsgit-ls-tree-options-'));
    repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    git(repo, ['init', '-q', '-b', 'main']);
    const write = (f: string, data: string | Buffer): void => {
      fs.mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
      fs.writeFileSync(path.join(repo, f), data);
    };
    write('a.txt', 'hello\n');
    write('empty', '');
    write('caf\u00e9 x.txt', '\u00e9\n');
    write('sub/big.bin', Buffer.alloc(12345, 7));
    write('sub/huge.bin', Buffer.alloc(1234567, 1));
    write('sub/deep/c', 'x');
    // Enough blobs that some share 4 or 5 leading hex digits (--abbrev=4 lengthens those).
    for (let i = 0; i < 700; i++) write(`many/f${i}`, `${i}\n`);
    fs.symlinkSync('a.txt', path.join(repo, 'link'));
    git(repo, ['add', '.']);
    blobA = spawnSync('git', ['hash-object', 'a.txt'], { cwd: repo }).stdout.toString().trim();
    // A submodule whose (missing) commit shares 39 digits with a blob: its abbreviation is 40 long.
    const near = blobA.slice(0, 39) + (blobA[39] === '0' ? '1' : '0');
    git(repo, ['update-index', '--add', '--cacheinfo', `160000,${near},sub/mod`]);
    git(repo, ['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},mod`]);
    git(repo, ['commit', '-q', '-m', 'tree']);
  });
  after(() => rmrf(root));

  /** Runs every command line in tsgit (one batch) and in git, and compares them. */
  const compareAll = (lines: Array<[string, string[]]>, spawnSome = false): void =>
    assertSameAsGit(lines.map(([rel, args]) => ({ cwd: path.join(repo, rel), args: ['ls-tree', ...args] })), { stderr: 'on-failure', spawnSome });

  const FORMATS = [
    '%(objectmode) %(objecttype) %(objectname) %(objectsize) %(objectsize:padded)|%(path)',
    '%(objectmode) %(objecttype) %(objectname)%x09%(path)', '%(path)', '%(objectname)', '%(path)|%x00%x41%n%%',
    '%(objectmode) %(objecttype) %(objectname) %(objectsize:padded)%x09%(path)', '', '100%% %(objecttype)',
  ];
  const BAD_FORMATS = ['%(foo)', '%(path', '%foo', 'abc%', '%x', '%x4', '%(objectsize:padded', '%(objectsize:x)'];

  test('-l, --abbrev and --object-only, with -r, -t, -d, -z, --name-only, --full-name', () => {
    const lines: Array<[string, string[]]> = [];
    const modes = [['-l'], ['--long'], ['--object-only'], ['--abbrev'], ['--abbrev=4'], ['--abbrev=5', '-l'], ['--abbrev=2'],
      ['--abbrev=0'], ['--abbrev=50'], ['--no-abbrev'], ['--abbrev', '--object-only'], ['--name-status']];
    const others = [[], ['-r'], ['-r', '-t'], ['-d'], ['-d', '-r'], ['-z'], ['--full-name'], ['--full-tree', '-r']];
    for (const m of modes) for (const o of others) for (const [rel, paths] of [['', []], ['sub', []], ['sub', ['..', 'deep/']]] as const) {
      lines.push([rel, [...m, ...o, 'HEAD', ...paths]]);
    }
    lines.push(['', ['-rtl', 'HEAD']], ['', ['-r', '--abbrev=4', 'HEAD', 'many']], ['', ['--abbrev', 'HEAD', 'sub/mod', 'mod']]);
    compareAll(lines, true);
  });

  test('--abbrev follows core.abbrev and refuses a non-number', () => {
    compareAll([['', ['--abbrev=x', 'HEAD']], ['', ['--abbrev=', 'HEAD']], ['', ['--abbrev=7x', 'HEAD']]]);
    for (const value of ['5', 'no', 'auto', '12']) {
      git(repo, ['config', 'core.abbrev', value]);
      compareAll([['', ['--abbrev', '-r', 'HEAD', 'sub']], ['sub', ['--abbrev', '-l', 'HEAD']], ['', ['-r', 'HEAD', 'sub']]]);
    }
    git(repo, ['config', '--unset', 'core.abbrev']);
    // From -c and from the global file too, as git reads them.
    const global = path.join(root, 'global-config');
    fs.writeFileSync(global, '[core]\n\tabbrev = 6\n\tquotepath = false\n');
    for (const [args, env] of [[['-c', 'core.abbrev=5', '-c', 'core.quotepath=false'], GIT_ENV], [[], { ...GIT_ENV, GIT_CONFIG_GLOBAL: global }]] as const) {
      const line = [...args, 'ls-tree', '--abbrev', 'HEAD'];
      const theirs = spawnSync('git', line, { cwd: repo, env });
      assert.equal(tsgit(repo, line, undefined, env).stdout.toString('latin1'), theirs.stdout.toString('latin1'), line.join(' '));
    }
  });

  test('--format: its atoms and escapes, its built-in forms under -z, and its errors', () => {
    const lines: Array<[string, string[]]> = [];
    for (const f of FORMATS) {
      for (const o of [[], ['-r'], ['-z'], ['-d', '-r'], ['--abbrev'], ['--full-name']]) {
        lines.push(['', [...o, `--format=${f}`, 'HEAD']], ['sub', [...o, '--format', f, 'HEAD', '..']]);
      }
    }
    for (const f of BAD_FORMATS) lines.push(['', [`--format=${f}`, 'HEAD']]);
    for (const o of [['-l'], ['--name-only'], ['--name-status'], ['--object-only']]) {
      lines.push(['', ['--format=%(path)', ...o, 'HEAD']], ['', [...o, '--format=x', 'HEAD']]);
    }
    lines.push(['', ['--format']], ['', ['HEAD', '--format']]);
    compareAll(lines);
  });

  test('the format-altering options conflict as git reports it', () => {
    const opts = ['-l', '--long', '--name-only', '--name-status', '--object-only'];
    const lines: Array<[string, string[]]> = [];
    for (const a of opts) for (const b of opts) lines.push(['', [a, b, 'HEAD']]);
    compareAll(lines);
  });

  test('-- ends the options; pathspec magic :(top), :/ and :(literal), and the magic git refuses', () => {
    const lines: Array<[string, string[]]> = [];
    lines.push(['', ['--', 'HEAD', 'sub']], ['', ['HEAD', '--', '-r']], ['', ['-r', 'HEAD', '--', 'sub/deep']], ['', ['HEAD', '-r', '--', '--', 'a.txt']]);
    const specs = [':(top)a.txt', ':/a.txt', ':/', ':(top)', ':(literal)deep', ':(top,literal)sub', ':/:a.txt', ':', ':(top)../x',
      ':(literal)../a.txt', ':(top)/sub/deep', ':(top)sub/deep/', ':*x', ':(glob)deep', ':(icase)deep', ':(attr:x)deep', ':!deep',
      ':^deep', ':(exclude)deep', ':(icase,exclude,glob)x', ':(literal,glob)x', ':(bogus)x', ':(top', ':#x', ':-x', ':/!x', '',
      ':(literal)../../..', '../../..'];
    for (const s of specs) {
      lines.push(['sub', ['HEAD', s]], ['sub', ['-r', '--full-name', 'HEAD', s]]);
    }
    lines.push(['sub', ['HEAD', 'deep', '']], ['sub', ['nosuch', '']], ['sub', ['HEAD:sub/big.bin', ':(glob)x']], ['sub', ['--full-tree', 'HEAD', ':/sub']]);
    compareAll(lines);
  });
});
