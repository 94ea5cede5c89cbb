// working-tree-encoding against git (with glibc's iconv): the UTF-16/32 family with and without
// BOMs, git's own -BOM names, legacy code pages, combined with eol and ident; what git cannot
// convert is reported with git's message and written unconverted, as git does; and a switch reads
// encoded files back before it calls them changed.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, git, tsgit } from './helpers.js';
import {
  cloneNoCheckout, compareWithGit, fastImport, removeScratch, repoWith, scratch, snapshot, WRITER_THREADS, type FileSpec,
} from './checkout-oracle.js';

afterEach(removeScratch);

const UNICODE = 'h\u00e9llo w\u00f6rld \u2013 \u2603 \u{1F600}\nline two\n';

const ATTRIBUTES = [
  '*.u16 working-tree-encoding=UTF-16', '*.u16le working-tree-encoding=UTF-16LE', '*.u16be working-tree-encoding=UTF-16BE',
  '*.u16lebom working-tree-encoding=UTF-16LE-BOM', '*.u16bebom working-tree-encoding=utf16be-bom',
  '*.alias working-tree-encoding=utf16', '*.u32 working-tree-encoding=UTF-32', '*.u32le working-tree-encoding=UTF-32LE',
  '*.u32be working-tree-encoding=UTF-32BE', '*.ps1 text eol=crlf working-tree-encoding=UTF-16LE-BOM',
  '*.utf8 working-tree-encoding=utf-8', '*.latin1 working-tree-encoding=ISO-8859-1', '*.l1 working-tree-encoding=latin1',
  '*.cp1252 working-tree-encoding=WINDOWS-1252', '*.cp1251 working-tree-encoding=CP1251', '*.koi8 working-tree-encoding=KOI8-R',
  '*.iso2 working-tree-encoding=ISO-8859-2', '*.sjis working-tree-encoding=SHIFT-JIS', '*.eucjp working-tree-encoding=EUC-JP',
  '*.gbk working-tree-encoding=GBK', '*.gb18030 working-tree-encoding=GB18030', '*.big5 working-tree-encoding=BIG5',
  '*.euckr working-tree-encoding=EUC-KR', '*.auto text=auto working-tree-encoding=UTF-16LE-BOM',
  '*.id ident working-tree-encoding=UTF-16', '',
].join('\n');

const ENCODED: FileSpec[] = [
  { mode: '100644', path: '.gitattributes', data: ATTRIBUTES },
  ...['a.u16', 'a.u16le', 'a.u16be', 'a.u16lebom', 'a.u16bebom', 'a.alias', 'a.u32', 'a.u32le', 'a.u32be', 'a.utf8', 'a.gb18030']
    .map(p => ({ mode: '100644', path: p, data: UNICODE })),
  { mode: '100644', path: 'scripts/build.ps1', data: 'Write-Host "Gr\u00fc\u00dfe"\nexit 0\n' },
  { mode: '100755', path: 'scripts/run.ps1', data: '# \u2603\r\nalready crlf\r\n' },
  { mode: '100644', path: 'bom.u16le', data: '\ufeffa blob that starts with a BOM\n' },
  { mode: '100644', path: 'empty.u16', data: '' },
  { mode: '100644', path: 'text.auto', data: 'auto\ntext\n' },
  { mode: '100644', path: 'v.id', data: '$Id$\n$$Id$ x\n' },
  { mode: '100644', path: 'a.latin1', data: 'caf\u00e9 \u00bd \u00ff\n' },
  { mode: '100644', path: 'a.l1', data: 'na\u00efve\n' },
  { mode: '100644', path: 'a.cp1252', data: '\u20ac \u201cquoted\u201d caf\u00e9\n' },
  { mode: '100644', path: 'a.cp1251', data: '\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440\n' },
  { mode: '100644', path: 'a.koi8', data: '\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440\n' },
  { mode: '100644', path: 'a.iso2', data: 'Za\u017c\u00f3\u0142\u0107 g\u0119\u015bl\u0105\n' },
  { mode: '100644', path: 'a.sjis', data: '\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\n' },
  { mode: '100644', path: 'a.eucjp', data: '\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\n' },
  { mode: '100644', path: 'a.gbk', data: '\u4e2d\u6587\u6587\u672c\n' },
  { mode: '100644', path: 'a.big5', data: '\u7e41\u9ad4\u4e2d\u6587\n' },
  { mode: '100644', path: 'a.euckr', data: '\ud55c\uad6d\uc5b4\n' },
];

/**
 * Settings for both checkouts, and for tsgit's only: its writer threads are compared with git's
 * sequential checkout (see CompareOptions).
 */
const SETTINGS: [string[], string[]][] = [[[], []], [['core.autocrlf=true'], []], [[], WRITER_THREADS]];

for (const [config, oursOnly] of SETTINGS) {
  test(`working-tree-encoding writes the bytes git writes (${[...config, ...oursOnly].join(' ') || 'default settings'})`, () => {
    const { ours } = compareWithGit(repoWith(ENCODED), config, [], { oursOnly });
    const bytes = (p: string): Buffer => fs.readFileSync(path.join(ours, p));
    // Spot checks that the oracle really re-encoded (a tsgit and a git that both skipped would agree).
    assert.deepEqual(bytes('a.u16lebom').subarray(0, 4), Buffer.from([0xff, 0xfe, 0x68, 0x00]));
    assert.deepEqual(bytes('a.u16bebom').subarray(0, 4), Buffer.from([0xfe, 0xff, 0x00, 0x68]));
    assert.deepEqual(bytes('a.u16be').subarray(0, 2), Buffer.from([0x00, 0x68]));
    assert.deepEqual(bytes('scripts/build.ps1').subarray(-6), Buffer.from([0x30, 0x00, 0x0d, 0x00, 0x0a, 0x00]));
    const eol = config.includes('core.autocrlf=true') ? '\r\n' : '\n';
    assert.deepEqual(bytes('a.latin1'), Buffer.from(`caf\u00e9 \u00bd \u00ff${eol}`, 'latin1'));
    assert.deepEqual(bytes('a.sjis').subarray(0, 2), Buffer.from([0x93, 0xfa]));
    assert.equal(bytes('empty.u16').length, 0);
    assert.equal(bytes('a.utf8').toString('utf8'), UNICODE.replace(/\n/g, eol));
  });
}

/** The "error: ..." lines of a command's stderr, sorted (threads may finish in any order). */
const errorLines = (stderr: string): string[] => stderr.split('\n').filter(l => l.startsWith('error: ')).sort();

test('what git cannot encode is reported as git reports it and written unconverted, on one thread or several', () => {
  const files: FileSpec[] = [
    { mode: '100644', path: '.gitattributes', data: '*.nope working-tree-encoding=NOPE-1\n*.latin1 working-tree-encoding=ISO-8859-1\n*.u16 working-tree-encoding=UTF-16LE-BOM\n*.sjis working-tree-encoding=SHIFT_JIS\n' },
    { mode: '100644', path: 'ok.u16', data: 'fine\n' },
    { mode: '100644', path: 'unknown.nope', data: 'no such encoding\n' },
    { mode: '100644', path: 'euro.latin1', data: '\u20ac is not in ISO-8859-1\n' },
    { mode: '100644', path: 'invalid.u16', data: Buffer.from([0x61, 0xff, 0xfe, 0x0a]) },
    { mode: '100644', path: 'truncated.sjis', data: Buffer.from([0xe6, 0x97]) },
  ];
  for (let i = 0; i < 120; i++) files.push({ mode: '100644', path: `many/f${i}.${i % 20 ? 'u16' : 'nope'}`, data: `file ${i}\n` });
  for (const oursOnly of [[], WRITER_THREADS]) {
    const { ourStderr, theirStderr } = compareWithGit(repoWith(files), [], [], { oursOnly });
    const ours = errorLines(ourStderr);
    assert.deepEqual(ours, errorLines(theirStderr));
    assert.ok(ours.includes("error: failed to encode 'euro.latin1' from UTF-8 to ISO-8859-1"), ours.join('\n'));
    assert.ok(ours.includes("error: failed to encode 'unknown.nope' from UTF-8 to NOPE-1"), ours.join('\n'));
    assert.equal(ours.length, 4 + 6);
  }
});

test('tsgit clone reports encoding failures and still checks out, as git clone does', () => {
  const src = repoWith([
    { mode: '100644', path: '.gitattributes', data: '*.txt working-tree-encoding=KOI8-R\n' },
    { mode: '100644', path: 'ru.txt', data: '\u041f\u0440\u0438\u0432\u0435\u0442\n' },
    { mode: '100644', path: 'jp.txt', data: '\u65e5\u672c\n' },
  ]);
  const parent = scratch('tsgit-clone-enc-');
  const r = tsgit(parent, ['clone', '-q', src, 'ours']);
  const g = spawnSync('git', ['clone', '-q', src, 'theirs'], { cwd: parent, env: GIT_ENV });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(g.status, 0);
  assert.deepEqual(errorLines(r.stderr.toString()), ["error: failed to encode 'jp.txt' from UTF-8 to KOI8-R"]);
  assert.deepEqual(errorLines(r.stderr.toString()), errorLines(g.stderr.toString()));
  assert.deepEqual(snapshot(path.join(parent, 'ours')), snapshot(path.join(parent, 'theirs')));
});

test('working-tree-encoding set without a value is fatal before anything is written, as in git', () => {
  const src = repoWith([
    { mode: '100644', path: '.gitattributes', data: '*.x working-tree-encoding\n' },
    { mode: '100644', path: 'a.x', data: 'a\n' },
  ]);
  const wt = cloneNoCheckout(src);
  const r = tsgit(wt, ['checkout']);
  assert.equal(r.status, 128);
  assert.match(r.stderr.toString(), /^fatal: a\.x: true\/false are no valid working-tree-encodings\n$/);
  assert.deepEqual(fs.readdirSync(wt), ['.git']);
  const g = spawnSync('git', ['checkout'], { cwd: cloneNoCheckout(src), env: GIT_ENV });
  assert.equal(g.status, 128);
  assert.match(g.stderr.toString(), /fatal: true\/false are no valid working-tree-encodings/);
});

test('a switch reads encoded files back: unchanged after another BOM, changed after an edit, as git decides', () => {
  const src = scratch('tsgit-switch-enc-');
  git(src, ['init', '-q', '-b', 'main', '.']);
  const first: FileSpec[] = [
    { mode: '100644', path: '.gitattributes', data: '*.ps1 working-tree-encoding=UTF-16LE-BOM\n*.u16 working-tree-encoding=UTF-16\n' },
    { mode: '100644', path: 'a.ps1', data: 'one\n' },
    { mode: '100644', path: 'b.u16', data: 'bee\n' },
    { mode: '100644', path: 'c.txt', data: 'one\n' },
  ];
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/one', first, null));
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/main', [
    { mode: '100644', path: 'a.ps1', data: 'two\n' }, { mode: '100644', path: 'b.u16', data: 'bee two\n' },
  ], 'refs/heads/one'));
  const utf16be = (text: string): Buffer => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
  const trees = [cloneNoCheckout(src), cloneNoCheckout(src)];
  const [ours, theirs] = trees as [string, string];
  assert.equal(tsgit(ours, ['checkout', '-q']).status, 0);
  git(theirs, ['checkout', '-q']);
  for (const wt of trees) {
    // The same text with a big-endian BOM: git reads UTF-16LE-BOM files as UTF-16, so unchanged.
    fs.writeFileSync(path.join(wt, 'a.ps1'), utf16be('two\n'));
    // Another text: a local change the switch would lose.
    fs.writeFileSync(path.join(wt, 'b.u16'), utf16be('mine\n'));
  }
  let r = tsgit(ours, ['checkout', '-q', 'one']);
  let g = spawnSync('git', ['checkout', '-q', 'one'], { cwd: theirs, env: GIT_ENV });
  assert.equal(r.status, g.status);
  assert.equal(g.status, 1);
  assert.match(r.stderr.toString(), /overwritten by checkout:\n\tb\.u16\n/);
  assert.match(g.stderr.toString(), /overwritten by checkout:\n\tb\.u16\n/);
  for (const wt of trees) fs.writeFileSync(path.join(wt, 'b.u16'), utf16be('bee two\n'));
  r = tsgit(ours, ['checkout', '-q', 'one']);
  g = spawnSync('git', ['checkout', '-q', 'one'], { cwd: theirs, env: GIT_ENV });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(g.status, 0, g.stderr.toString());
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  assert.equal(fs.readFileSync(path.join(ours, 'a.ps1')).toString('hex'), 'fffe6f006e0065000a00');
  assert.equal(git(ours, ['status', '--porcelain']), '');
});

/** Every non-ASCII BMP character `encoding` can hold, as UTF-8 (iconv -c there and back), in lines of 64. */
function repertoire(encoding: string): Buffer {
  const all: string[] = [];
  for (let cp = 0x80; cp < 0x10000; cp++) if (cp < 0xd800 || cp >= 0xe000) all.push(String.fromCodePoint(cp));
  const there = spawnSync('iconv', ['-c', '-f', 'UTF-8', '-t', encoding], { input: all.join(''), maxBuffer: 1 << 26 });
  const back = spawnSync('iconv', ['-f', encoding, '-t', 'UTF-8'], { input: there.stdout, maxBuffer: 1 << 26 });
  assert.equal(back.status, 0, `${encoding}: ${back.stderr}`);
  return Buffer.from([...back.stdout.toString('utf8')].join('').replace(/(.{64})/gu, '$1\n') + '\n');
}

test('whole code pages encode as git encodes them, by table and through iconv per file', () => {
  const tables = ['ISO-8859-1', 'ISO-8859-2', 'ISO_8859-15', 'WINDOWS-1252', 'CP1251', 'KOI8-U', 'SHIFT_JIS', 'CP932', 'EUC-JP', 'EUC-KR', 'CP949', 'GBK', 'GB18030', 'BIG5'];
  const perFile = ['CP1258', 'CP1255', 'CP437', 'MACINTOSH', 'EBCDIC-US'];
  const names = [...tables, ...perFile];
  const files: FileSpec[] = [{ mode: '100644', path: '.gitattributes', data: names.map((n, k) => `*.e${k} working-tree-encoding=${n}\n`).join('') }];
  names.forEach((n, k) => files.push({ mode: '100644', path: `all.e${k}`, data: repertoire(n) }));
  // Past the BMP only GB18030 holds anything.
  files.push({ mode: '100644', path: `astral.e${names.indexOf('GB18030')}`, data: '\u{1F600} \u{20000} \u{10FFFF}\n' });
  files.push({ mode: '100644', path: `astral.e${names.indexOf('GBK')}`, data: '\u{1F600}\n' });
  files.push({ mode: '100644', path: `vi.e${names.indexOf('CP1258')}`, data: 'Ti\u1ebfng Vi\u1ec7t\n' });
  const { ourStderr, theirStderr } = compareWithGit(repoWith(files), [], [], { oursOnly: WRITER_THREADS });
  assert.deepEqual(errorLines(ourStderr), [`error: failed to encode 'astral.e${names.indexOf('GBK')}' from UTF-8 to GBK`]);
  assert.deepEqual(errorLines(ourStderr), errorLines(theirStderr));
});
