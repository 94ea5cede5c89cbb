// A repository shaped like a large project's, checked out by tsgit and by git under every setting
// that changes a checkout: `* text=auto` at the root, vendored code under -text, Windows files
// with eol=crlf, PowerShell scripts in UTF-16LE-BOM, .gitattributes in subdirectories overriding
// the root, ident in streamed and in-memory files, binaries found by git's NUL/CR heuristic,
// symlinks and executables; then core.autocrlf, core.eol, core.symlinks, core.fileMode, writer
// threads, and the attributes files outside the tree.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GIT_ENV, git, seededInt, tsgit } from './helpers.js';
import {
  cloneNoCheckout, compareWithGit, fastImport, removeScratch, repoWith, scratch, snapshot, WRITER_THREADS, type FileSpec,
} from './checkout-oracle.js';

afterEach(removeScratch);

/** ident cases on which git's streaming filter and its in-memory one disagree, and some they share. */
const IDENTS = '$Id$\n$$Id$ doubled\n$Id:\tx y$ tab\n$Idx$Id: a b $ pending\n$Id: old $\n$Id: two words $\n$Id:broken\n$Id\0$\n$Id';

const PROJECT: FileSpec[] = [
  {
    mode: '100644', path: '.gitattributes', data: [
      '* text=auto', '*.sh text eol=lf', '*.bat text eol=crlf', '*.cmd text eol=crlf', '*.sln text eol=crlf',
      '*.ps1 text eol=crlf working-tree-encoding=UTF-16LE-BOM', '*.png binary', '*.jpg -text', 'vendor/** -text',
      '/Makefile text eol=lf', '*.po text', '',
    ].join('\n'),
  },
  { mode: '100644', path: 'README.md', data: '# Project\n\nSome text.\n' },
  { mode: '100644', path: 'NEWS', data: 'committed\r\nwith CRLF\r\n' },
  { mode: '100644', path: 'Makefile', data: 'all:\n\techo hi\n' },
  { mode: '100644', path: 'lonecr.txt', data: 'a lone\rcarriage return\n' },
  { mode: '100644', path: 'mixed.txt', data: 'crlf\r\nand lf\n' },
  { mode: '100644', path: 'nul.dat', data: Buffer.from('looks like text\n\0but has a NUL\n') },
  { mode: '100644', path: 'ctrl.txt', data: Buffer.from('\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10 control\n') },
  { mode: '100644', path: 'dosend.txt', data: Buffer.from('ends with ^Z\n\x1a') },
  { mode: '100644', path: 'art/logo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x0a, 0x41, 0x0a]) },
  { mode: '100644', path: 'art/photo.jpg', data: 'not really a jpeg\n' },
  { mode: '100644', path: 'vendor/lib/a.c', data: 'int a;\n' },
  { mode: '100644', path: 'vendor/lib/b.c', data: 'int b;\r\n' },
  { mode: '100644', path: 'vendor/lib/.gitattributes', data: '*.txt text eol=crlf\n' },
  { mode: '100644', path: 'vendor/lib/NOTICE.txt', data: 'vendored, but its own attributes say crlf\n' },
  { mode: '100644', path: 'windows/.gitattributes', data: '* text eol=crlf\n*.dll binary\n' },
  { mode: '100644', path: 'windows/build.bat', data: '@echo off\nbuild\n' },
  { mode: '100644', path: 'windows/setup.cmd', data: 'setup\r\nalready crlf\n' },
  { mode: '100644', path: 'windows/App.sln', data: 'Microsoft Visual Studio Solution File\n' },
  { mode: '100644', path: 'windows/readme.txt', data: 'read me\n' },
  { mode: '100644', path: 'windows/lib.dll', data: Buffer.from('MZ\0\0\n\r\n') },
  { mode: '100644', path: 'scripts/install.ps1', data: 'Write-Host "Gr\u00fc\u00dfe aus \u00d6sterreich"\nexit 0\n' },
  { mode: '100755', path: 'scripts/run.sh', data: '#!/bin/sh\necho run\n' },
  { mode: '100644', path: 'src/.gitattributes', data: '*.h text ident\n*.c ident\nlegacy/*.c working-tree-encoding=ISO-8859-1\n' },
  { mode: '100644', path: 'src/main.c', data: IDENTS },
  { mode: '100644', path: 'src/main.h', data: IDENTS },
  { mode: '100644', path: 'src/legacy/old.c', data: '/* Fran\u00e7ois */\nint x;\n' },
  { mode: '100644', path: 'docs/.gitattributes', data: '*.txt -text\n*.md text eol=crlf\n' },
  { mode: '100644', path: 'docs/guide.md', data: 'guide\n' },
  { mode: '100644', path: 'docs/notes.txt', data: 'notes\r\nkept as they are\n' },
  { mode: '100644', path: 'po/de.po', data: 'msgid "Hello"\nmsgstr "Gr\u00fc\u00df Gott"\n' },
  { mode: '120000', path: 'docs/link-to-readme', data: '../README.md' },
  { mode: '120000', path: 'latest', data: 'scripts/run.sh' },
];

/**
 * Settings for both checkouts, and for tsgit's only: its writer threads are compared with git's
 * sequential checkout (see CompareOptions).
 */
const SETTINGS: [string[], string[]][] = [
  [[], []], [['core.autocrlf=true'], []], [['core.autocrlf=input'], []], [['core.eol=crlf'], []],
  [['core.eol=lf', 'core.autocrlf=true'], []], [['core.symlinks=false'], []], [['core.fileMode=false'], []],
  [['core.autocrlf=true'], WRITER_THREADS],
];

for (const [config, oursOnly] of SETTINGS) {
  test(`a project's attributes check out as git checks them out (${[...config, ...oursOnly].join(' ') || 'default settings'})`, () => {
    const { ours } = compareWithGit(repoWith(PROJECT), config, [], { oursOnly });
    const text = (p: string): string => fs.readFileSync(path.join(ours, p), 'latin1');
    // git streams main.h (text, ident) and reads main.c (text=auto, ident) into memory: their
    // ident expansions differ, which is what shows tsgit picked git's filter for each.
    assert.match(text('src/main.h'), /^\$Id: [0-9a-f]{40} \$\r?\n\$\$Id\$ doubled/);
    assert.match(text('src/main.c'), /^\$Id: [0-9a-f]{40} \$\r?\n\$\$Id: [0-9a-f]{40} \$ doubled/);
    assert.equal(text('windows/build.bat'), '@echo off\r\nbuild\r\n');
    assert.equal(text('vendor/lib/a.c'), 'int a;\n');
    if (config.includes('core.symlinks=false')) assert.equal(text('latest'), 'scripts/run.sh');
    else assert.equal(fs.readlinkSync(path.join(ours, 'latest')), 'scripts/run.sh');
    // git writes the executable bit whatever core.fileMode says; it only stops comparing it.
    assert.equal(fs.statSync(path.join(ours, 'scripts/run.sh')).mode & 0o111, 0o111);
  });
}

test('core.autocrlf=true across a mixed tree converts only what git converts', () => {
  const { ours } = compareWithGit(repoWith(PROJECT.filter(f => !f.path.endsWith('.gitattributes'))), ['core.autocrlf=true']);
  const text = (p: string): string => fs.readFileSync(path.join(ours, p), 'latin1');
  assert.equal(text('README.md'), '# Project\r\n\r\nSome text.\r\n');
  assert.equal(text('NEWS'), 'committed\r\nwith CRLF\r\n');
  assert.equal(text('mixed.txt'), 'crlf\r\nand lf\n');
  assert.equal(text('lonecr.txt'), 'a lone\rcarriage return\n');
  assert.equal(text('nul.dat'), 'looks like text\n\0but has a NUL\n');
  assert.equal(text('ctrl.txt'), '\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10 control\n');
  assert.equal(text('dosend.txt'), 'ends with ^Z\r\n\x1a');
});

/** A source repository: commit `one` holding `files`, then `main` changing `changes` on top of it. */
function twoCommits(files: FileSpec[], changes: FileSpec[]): string {
  const src = scratch('tsgit-switch-src-');
  git(src, ['init', '-q', '-b', 'main', '.']);
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/one', files, null));
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/main', changes, 'refs/heads/one'));
  return src;
}

/** Clones `src` twice with `config`, checks out main (tsgit, git), lets `edit` touch both, then switches to `one` with each. */
function switchBoth(src: string, config: string[], edit: (wt: string) => void): { ours: string; theirs: string; ourStatus: number | null; theirStatus: number | null } {
  const ours = cloneNoCheckout(src, config);
  const theirs = cloneNoCheckout(src, config);
  assert.equal(tsgit(ours, ['checkout', '-q']).status, 0);
  git(theirs, ['checkout', '-q']);
  edit(ours);
  edit(theirs);
  const r = tsgit(ours, ['checkout', '-q', 'one']);
  const g = spawnSync('git', ['checkout', '-q', 'one'], { cwd: theirs, env: GIT_ENV });
  return { ours, theirs, ourStatus: r.status, theirStatus: g.status };
}

test('core.fileMode=false: a chmod is no local change to a switch, as for git; with true it is', () => {
  const src = twoCommits(
    [{ mode: '100755', path: 'run.sh', data: '#!/bin/sh\n' }, { mode: '100644', path: 'a.txt', data: 'one\n' }],
    [{ mode: '100755', path: 'run.sh', data: '#!/bin/sh\necho two\n' }, { mode: '100644', path: 'a.txt', data: 'two\n' }]);
  for (const fileMode of ['false', 'true']) {
    const { ours, theirs, ourStatus, theirStatus } = switchBoth(src, [`core.fileMode=${fileMode}`],
      wt => fs.chmodSync(path.join(wt, 'run.sh'), 0o644));
    assert.equal(theirStatus, fileMode === 'false' ? 0 : 1);
    assert.equal(ourStatus, theirStatus);
    assert.deepEqual(snapshot(ours), snapshot(theirs));
  }
});

test('core.symlinks=false: a link checked out as a file is unchanged for a switch, and updated when its target changes', () => {
  const src = twoCommits(
    [{ mode: '120000', path: 'link', data: 'target-one' }, { mode: '120000', path: 'same', data: 'a.txt' }, { mode: '100644', path: 'a.txt', data: 'one\n' }],
    [{ mode: '120000', path: 'link', data: 'target-two' }, { mode: '100644', path: 'a.txt', data: 'two\n' }]);
  const { ours, theirs, ourStatus, theirStatus } = switchBoth(src, ['core.symlinks=false'], () => {});
  assert.equal(theirStatus, 0);
  assert.equal(ourStatus, 0);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  assert.equal(fs.readFileSync(path.join(ours, 'link'), 'utf8'), 'target-one');
  assert.equal(git(ours, ['status', '--porcelain']), '');
});

test('attributes from info/attributes, core.attributesFile (with ~) and the XDG default apply in git\'s order', () => {
  const home = scratch('tsgit-home-');
  const xdg = path.join(home, 'xdg');
  fs.mkdirSync(path.join(xdg, 'git'), { recursive: true });
  fs.mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
  fs.writeFileSync(path.join(home, 'attrs'), '*.c text eol=crlf\n*.raw text eol=crlf\n');
  fs.writeFileSync(path.join(xdg, 'git', 'attributes'), '*.c working-tree-encoding=UTF-16LE-BOM\n*.xdg text eol=crlf\n');
  fs.writeFileSync(path.join(home, '.config', 'git', 'attributes'), '*.home text eol=crlf\n');
  const src = repoWith([
    { mode: '100644', path: '.gitattributes', data: '*.raw -text\n' },
    { mode: '100644', path: 'a.c', data: 'int a;\n' },
    { mode: '100644', path: 'a.raw', data: 'raw\n' },
    { mode: '100644', path: 'a.xdg', data: 'xdg\n' },
    { mode: '100644', path: 'a.home', data: 'home\n' },
    { mode: '100644', path: 'plain.txt', data: 'plain\n' },
  ]);
  const cases: { env: NodeJS.ProcessEnv; config: string[]; expect: Record<string, string> }[] = [
    // core.attributesFile with ~ wins over the default file; .gitattributes wins over it; info over all.
    { env: { ...GIT_ENV, HOME: home, XDG_CONFIG_HOME: xdg }, config: ['core.attributesFile=~/attrs'],
      expect: { 'a.c': 'int a;\r\n', 'a.raw': 'raw\n', 'a.xdg': 'xdg\n', 'plain.txt': 'plain\r\n' } },
    // Without it, $XDG_CONFIG_HOME/git/attributes.
    { env: { ...GIT_ENV, HOME: home, XDG_CONFIG_HOME: xdg }, config: [],
      expect: { 'a.c': Buffer.from('int a;\n', 'utf16le').toString('latin1').replace(/^/, '\xff\xfe'), 'a.xdg': 'xdg\r\n', 'a.home': 'home\n' } },
    // Without XDG_CONFIG_HOME, ~/.config/git/attributes.
    { env: { ...GIT_ENV, HOME: home, XDG_CONFIG_HOME: '' }, config: [], expect: { 'a.home': 'home\r\n', 'a.xdg': 'xdg\n' } },
  ];
  for (const { env, config, expect } of cases) {
    const ours = cloneNoCheckout(src, config, env);
    const theirs = cloneNoCheckout(src, config, env);
    for (const wt of [ours, theirs]) {
      fs.mkdirSync(path.join(wt, '.git', 'info'), { recursive: true });
      fs.writeFileSync(path.join(wt, '.git', 'info', 'attributes'), 'plain.txt text eol=crlf\n');
    }
    const r = tsgit(ours, ['checkout', '-q'], undefined, env);
    assert.equal(r.status, 0, r.stderr.toString());
    git(theirs, ['checkout', '-q'], undefined, env);
    assert.deepEqual(snapshot(ours), snapshot(theirs));
    for (const [file, content] of Object.entries(expect)) assert.equal(fs.readFileSync(path.join(ours, file), 'latin1'), content, file);
    assert.equal(git(ours, ['status', '--porcelain'], undefined, env), '');
  }
});

test('core.attributesFile with ~user is that user\'s home from the password file, and an unknown user is fatal, as in git', () => {
  // HOME points elsewhere, so only the password file finds the directory under the user's home.
  const home = scratch('tsgit-home-');
  const env = { ...GIT_ENV, HOME: home };
  const { username, homedir } = os.userInfo();
  const dir = fs.mkdtempSync(path.join(homedir, '.tsgit-attrs-'));
  try {
    fs.writeFileSync(path.join(dir, 'attrs'), '*.txt text eol=crlf\n');
    const src = repoWith([{ mode: '100644', path: 'a.txt', data: 'one\ntwo\n' }, { mode: '100644', path: 'b.dat', data: 'b\n' }]);
    const config = [`core.attributesFile=~${username}/${path.basename(dir)}/attrs`];
    const ours = cloneNoCheckout(src, config, env);
    const theirs = cloneNoCheckout(src, config, env);
    const r = tsgit(ours, ['checkout', '-q'], undefined, env);
    assert.equal(r.status, 0, r.stderr.toString());
    git(theirs, ['checkout', '-q'], undefined, env);
    assert.deepEqual(snapshot(ours), snapshot(theirs));
    assert.equal(fs.readFileSync(path.join(ours, 'a.txt'), 'latin1'), 'one\r\ntwo\r\n');

    const unknown = ['core.attributesFile=~no-such-user-tsgit/attrs'];
    const ours2 = cloneNoCheckout(src, [], env);
    const theirs2 = cloneNoCheckout(src, [], env);
    const o = tsgit(ours2, ['-c', unknown[0]!, 'checkout', '-q'], undefined, env);
    const t = spawnSync('git', ['-c', unknown[0]!, 'checkout', '-q'], { cwd: theirs2, env });
    assert.equal(t.status, 128);
    assert.equal(o.status, t.status);
    assert.equal(o.stderr.toString(), t.stderr.toString());
    assert.deepEqual(snapshot(ours2), snapshot(theirs2));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('ident on generated text matches git, streamed (ident alone) and in memory (with text=auto)', () => {
  // Short strings over the bytes either filter looks at, from a fixed seed: a few hundred cases.
  const alphabet = ['$', 'I', 'd', ':', ' ', '\t', '\n', 'x', '\0', '$Id', '$Id:', '$Id$', ' $'];
  const next = seededInt(12345);
  const files: FileSpec[] = [{ mode: '100644', path: '.gitattributes', data: '*.s ident\n*.m ident text=auto\n' }];
  for (let i = 0; i < 150; i++) {
    const text = Array.from({ length: 1 + next(14) }, () => alphabet[next(alphabet.length)]).join('');
    files.push({ mode: '100644', path: `g${i}.s`, data: Buffer.from(text, 'latin1') }, { mode: '100644', path: `g${i}.m`, data: Buffer.from(text, 'latin1') });
  }
  const { ours } = compareWithGit(repoWith(files));
  const differ = files.filter(f => f.path.endsWith('.s') && !fs.readFileSync(path.join(ours, f.path)).equals(fs.readFileSync(path.join(ours, f.path.replace(/\.s$/, '.m')))));
  assert.ok(differ.length > 0, 'no generated case tells the two filters apart');
});

test('end-of-line conversion on generated bytes matches git (NUL, lone CR, CRLF, control characters, ^Z)', () => {
  const alphabet = ['a', 'b c', '\n', '\r', '\r\n', '\0', '\x1a', '\x01', '\x7f', '\t', '\x1b', '\x0c'];
  const next = seededInt(777);
  const files: FileSpec[] = [{ mode: '100644', path: '.gitattributes', data: '*.a text=auto\n*.t text\n*.c eol=crlf\n*.l text=auto eol=lf\n' }];
  for (let i = 0; i < 80; i++) {
    // Mostly printable text with a few special bytes: the heuristic's printable/128 ratio matters.
    const text = Array.from({ length: 1 + next(40) }, () => alphabet[next(10) < 7 ? next(3) : next(alphabet.length)]).join('');
    for (const ext of ['a', 't', 'c', 'l', 'n']) files.push({ mode: '100644', path: `g${i}.${ext}`, data: Buffer.from(text, 'latin1') });
  }
  for (const config of [['core.autocrlf=true'], ['core.autocrlf=input'], ['core.eol=crlf']]) compareWithGit(repoWith(files), config);
});

test('a switch reads converted files back as git does: same content in another form is unchanged, another size is a change', () => {
  const attributes = '* text=auto\n*.ps1 text eol=crlf working-tree-encoding=UTF-16LE-BOM\n*.id ident\n';
  const src = twoCommits(
    [{ mode: '100644', path: '.gitattributes', data: attributes }, { mode: '100644', path: 'a.txt', data: 'one\ntwo\n' },
      { mode: '100644', path: 'b.ps1', data: 'one\n' }, { mode: '100644', path: 'c.id', data: '$Id$\none\n' }],
    [{ mode: '100644', path: 'a.txt', data: 'two\nthree\n' }, { mode: '100644', path: 'b.ps1', data: 'two\n' },
      { mode: '100644', path: 'c.id', data: '$Id$\ntwo\n' }]);
  // Each file the switch replaces, left as checkout wrote it but touched, or saved again in
  // another form of the same size: git reads each back to its blob.
  const resave = (wt: string): void => {
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(wt, 'a.txt'), later, later);
    fs.writeFileSync(path.join(wt, 'b.ps1'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('two\r\n', 'utf16le').swap16()]));
    fs.writeFileSync(path.join(wt, 'c.id'), fs.readFileSync(path.join(wt, 'c.id'), 'latin1').replace(/[0-9a-f]{40}/, 'x'.repeat(40)));
  };
  for (const config of [['core.autocrlf=input'], ['core.autocrlf=true']]) {
    const { ours, theirs, ourStatus, theirStatus } = switchBoth(src, config, resave);
    assert.equal(theirStatus, 0);
    assert.equal(ourStatus, 0);
    assert.deepEqual(snapshot(ours), snapshot(theirs));
  }
  // CRLF where checkout wrote LF cleans to the blob too, but git looks no further than the size.
  const { ourStatus, theirStatus } = switchBoth(src, ['core.autocrlf=input'], (wt) => {
    resave(wt);
    fs.writeFileSync(path.join(wt, 'a.txt'), 'two\r\nthree\r\n');
  });
  assert.equal(theirStatus, 1);
  assert.equal(ourStatus, theirStatus);
});
