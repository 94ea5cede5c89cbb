// A switch reads back every work-tree file whose stat no longer proves it unchanged, through its
// working-tree-encoding: the files of one stateless code page in one iconv run (counted by an
// iconv on PATH that logs and runs the real one), ISO-8859-1 and UTF-16 in process, a stateful
// encoding (ISO-2022-JP) a run per file. Against git: the same files are local changes, and what
// cannot be read back is reported as git reports it (its errors and hints, in git's order).
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, git, tsgit } from './helpers.js';
import { cloneNoCheckout, fastImport, removeScratch, scratch, snapshot, type FileSpec } from './checkout-oracle.js';

afterEach(removeScratch);

const ATTRIBUTES = '*.sj working-tree-encoding=SHIFT_JIS\n*.kr working-tree-encoding=EUC-KR\n' +
  '*.l1 working-tree-encoding=ISO-8859-1\n*.u16 working-tree-encoding=UTF-16\n*.jis working-tree-encoding=ISO-2022-JP\n';
const KINDS: [string, number, string][] = [
  ['sj', 40, '\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8'], ['kr', 40, '\ud55c\uad6d\uc5b4'],
  ['l1', 10, 'caf\u00e9 na\u00efve'], ['u16', 5, 'sixteen \u2603'], ['jis', 4, '\u65e5\u672c\u8a9e'],
];

function files(version: string): FileSpec[] {
  const out: FileSpec[] = [];
  for (const [ext, n, text] of KINDS) {
    for (let i = 0; i < n; i++) out.push({ mode: '100644', path: `${ext}/f${String(i).padStart(2, '0')}.${ext}`, data: `${text} ${version} ${i}\n` });
  }
  return out;
}

/** An `iconv` for PATH that logs its arguments to `log`, then runs the system's. */
function loggingIconv(dir: string, log: string): string {
  const real = execFileSync('sh', ['-c', 'command -v iconv']).toString().trim();
  fs.writeFileSync(path.join(dir, 'iconv'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return dir;
}

/** The runs to UTF-8 the logged iconv saw since the last call, by the encoding they read. */
function runsToUtf8(log: string): Map<string, number> {
  const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n') : [];
  fs.rmSync(log, { force: true });
  const runs = new Map<string, number>();
  for (const l of lines) {
    const m = /^--from-code=(\S+) --to-code=UTF-8$/.exec(l);
    if (m) runs.set(m[1]!, (runs.get(m[1]!) ?? 0) + 1);
  }
  return runs;
}

/** Every file under `wt` (but .git) given an old mtime: its stat no longer proves it clean. */
function touchAll(wt: string): void {
  const old = new Date('2020-01-01T00:00:00Z');
  for (const [ext] of KINDS) for (const name of fs.readdirSync(path.join(wt, ext))) fs.utimesSync(path.join(wt, ext, name), old, old);
}

/** Bytes `bad` over the start of a file, keeping its size (a change git can only see by reading it). */
function spoil(wt: string, rel: string, bad: number[]): void {
  const p = path.join(wt, rel);
  const data = fs.readFileSync(p);
  Buffer.from(bad).copy(data, 0);
  fs.writeFileSync(p, data);
}

/** The hint and error lines before the list of local changes. */
const reported = (stderr: string): string[] => stderr.split('\n').filter(l => /^(hint|error): /.test(l) && !/local changes/.test(l));

test('a switch reads many encoded files back with one iconv run per code page, and reports what it cannot read as git does', () => {
  const src = scratch('tsgit-switch-batch-');
  git(src, ['init', '-q', '-b', 'main', '.']);
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/one', [{ mode: '100644', path: '.gitattributes', data: ATTRIBUTES }, ...files('one')], null));
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/two', files('two'), 'refs/heads/one'));
  const bin = scratch('tsgit-iconv-bin-');
  const log = path.join(bin, 'log');
  const env = { ...GIT_ENV, PATH: `${loggingIconv(bin, log)}:${process.env.PATH}` };
  const ours = cloneNoCheckout(src);
  const theirs = cloneNoCheckout(src);
  for (const wt of [ours, theirs]) git(wt, ['checkout', '-q', 'one']);
  runsToUtf8(log);
  for (const wt of [ours, theirs]) {
    // Not SHIFT_JIS, not EUC-KR, not ISO-2022-JP, and UTF-16 without its BOM.
    spoil(wt, 'sj/f03.sj', [0x81, 0x20]);
    spoil(wt, 'sj/f31.sj', [0x81, 0x20]);
    spoil(wt, 'kr/f10.kr', [0xa1, 0x20]);
    spoil(wt, 'jis/f01.jis', [0x1b, 0x24, 0x42, 0x7f]);
    spoil(wt, 'u16/f02.u16', [0x73, 0x00]);
    // After the edits, so that no file is racy (git reads a racy file more than once, and says
    // so each time).
    touchAll(wt);
  }
  const r = tsgit(ours, ['checkout', '-q', 'two'], undefined, env);
  const g = spawnSync('git', ['checkout', '-q', 'two'], { cwd: theirs, env: GIT_ENV });
  assert.equal(r.status, g.status, r.stderr.toString());
  assert.equal(g.status, 1);
  const spoilt = ['jis/f01.jis', 'kr/f10.kr', 'sj/f03.sj', 'sj/f31.sj', 'u16/f02.u16'];
  for (const stderr of [r.stderr.toString(), g.stderr.toString()]) {
    assert.match(stderr, new RegExp(`overwritten by checkout:\\n${spoilt.map(p => `\\t${p.replace('.', '\\.')}\\n`).join('')}Please`));
  }
  assert.deepEqual(reported(r.stderr.toString()), reported(g.stderr.toString()));
  assert.equal(reported(g.stderr.toString()).length, 6, g.stderr.toString());
  // One run for the forty, and after each file that fails, that file alone and a run for the rest.
  // ISO-2022-JP keeps state from one character to the next: a run per file.
  assert.deepEqual(runsToUtf8(log), new Map([['EUC-KR', 3], ['ISO-2022-JP', 4], ['SHIFT_JIS', 5]]));

  // With the files as checked out again, every one of them reads back as its blob: one run each.
  for (const wt of [ours, theirs]) {
    git(wt, ['checkout', '-q', '-f', 'one']);
    touchAll(wt);
  }
  const again = tsgit(ours, ['checkout', '-q', 'two'], undefined, env);
  assert.equal(again.status, 0, again.stderr.toString());
  assert.deepEqual(runsToUtf8(log), new Map([['EUC-KR', 1], ['ISO-2022-JP', 4], ['SHIFT_JIS', 1]]));
  git(theirs, ['checkout', '-q', 'two']);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
});
