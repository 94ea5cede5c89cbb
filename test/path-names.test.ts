// Names that a filesystem may resolve to .git / .gitmodules & co: a table of spellings checked
// against our matchers, and the same names put in real trees and judged by `git fsck`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  componentProblem, isDotGit, isDotGitattributes, isDotGitignore, isDotGitmodules, isDotMailmap, mayNameDotFile,
  type PathProblem,
} from '../src/object/path-names.js';
import { GIT_ENV, git, rmrf, seededInt, tmpDir } from './helpers.js';

const DOT_GIT_YES = [
  '.git', '.GIT', '.Git', '.gIT', '.git.', '.git..', '.git ', '.git . ', '.git. . .', '.GIT  ..',
  'git~1', 'GIT~1', 'Git~1', 'git~1.', 'git~1 ', 'git~1 . ', 'git~2', 'GIT~3', 'git~4', 'git~4..',
  '.git:', '.git:stream', '.git::$INDEX_ALLOCATION', '.GIT::$index_allocation', 'git~1:x', '.git . :$DATA',
  '.git\\', '.git\\hooks', '.GIT\\config', 'git~1\\hooks', 'a\\.git', 'a\\b\\.git', 'a\\.git\\hooks', 'x\\GIT~1', 'x\\git~2', 'x\\.git .',
  '.g\u200cit', '.gi\u200dt', '\u200e.git', '.git\u200f', '.\u202agit', '.g\u202bit', '.gi\u202ct', '.git\u202d',
  '.\u202egit', '.g\u206ait', '.\u206bgit', '.gi\u206ct', '.git\u206d', '.\u206egit', '.g\u206fit', '\ufeff.git',
  '.\u200c\u200d\u200e\u200fGiT\ufeff', '.git/', '.git/hooks',
];
const DOT_GIT_NO = [
  '', '.', '..', 'git', 'GIT', '.gi', '.gitx', '.gitfoo', '.git~1', '.git~1x', 'git~1x', 'git~0', 'git~5',
  'git~12', 'gi~1', 'git~', '.git x', '.git.x', 'x.git', 'a.git', '..git', '. git', ' .git', '.g it', '.gi\u200bt',
  '.gi\u00e9t', 'git1', '.\u0067\u0301it', 'a\\b', '.git-hooks', '.github', '.gitignore', '.gitmodules', 'dotgit',
  '.g\u200cit.x', '\\git',
];

/** git's short names: regular (first six letters ~1..~4) and NTFS's hashed fallback stems. */
const FAMILIES: { name: string; is: (n: string) => boolean; yes: string[]; no: string[] }[] = [
  {
    name: '.gitmodules', is: isDotGitmodules,
    yes: ['.gitmodules', '.GITMODULES', '.GitModules', '.gitmodules.', '.gitmodules ', '.gitmodules . ',
      '.gitmodules:', '.gitmodules::$DATA', 'gitmod~1', 'GITMOD~1', 'gitmod~4', 'gitmod~4. ', 'gi7eba~1', 'GI7EBA~1',
      'gi7eba~9', 'gi7eb~12', 'gi7e~123', 'gi7~1234', 'gi~12345', 'g~123456', '~1234567', 'gi7eba~1:x', '.g\u200citmodules',
      '.gitmodules\u200c', 'a\\.gitmodules', 'x\\gitmod~1', '\ufeff.gitMODULES'],
    no: ['gitmodules', '.gitmodule', '.gitmodulesx', '.gitmodules.x', 'gitmod~5', 'gitmod~0', 'gitmod~1x', 'gitmod~',
      'gi7eba~0', 'gi7eba~10', 'gi7ebb~1', 'gi7eba~1x', 'gi7eb~1', 'gi7eba1', 'gi7ebaa~1', 'gitmo~1', '~123456', '~0123456',
      '.gitmodules\\x', '.gitattributes', '.git'],
  },
  {
    name: '.gitattributes', is: isDotGitattributes,
    yes: ['.gitattributes', '.GITATTRIBUTES', '.gitattributes. .', '.gitattributes:x', 'gitatt~1', 'GITATT~3',
      'gi7d29~1', 'gi7d2~99', '.g\u206fitattributes', 'a\\.gitattributes'],
    no: ['gitattributes', '.gitattribute', '.gitattributesx', 'gitatt~5', 'gi7d28~1', 'gitattr~1', '.gitignore'],
  },
  {
    name: '.gitignore', is: isDotGitignore,
    yes: ['.gitignore', '.GitIgnore', '.gitignore...', '.gitignore:$DATA', 'gitign~1', 'gitign~2', 'gi250a~1', 'GI250A~7',
      '.gitig\u200dnore', 'b\\gitign~1'],
    no: ['gitignore', '.gitignor', '.gitignore2', 'gitign~0', 'gi250b~1', 'gitig~1', '.gitmodules'],
  },
  {
    name: '.mailmap', is: isDotMailmap,
    yes: ['.mailmap', '.MAILMAP', '.mailmap .', '.mailmap::$DATA', 'mailma~1', 'MAILMA~4', 'maba30~1', 'maba3~12',
      '.mail\ufeffmap', 'c\\.mailmap'],
    no: ['mailmap', '.mailma', '.mailmaps', 'mailma~5', 'maba31~1', 'mailm~1', '.git'],
  },
];

test('isDotGit accepts every spelling that folds to .git and nothing else', () => {
  for (const name of DOT_GIT_YES) assert.equal(isDotGit(name), true, `${JSON.stringify(name)} is .git`);
  for (const name of DOT_GIT_NO) assert.equal(isDotGit(name), false, `${JSON.stringify(name)} is not .git`);
});

test('.gitmodules, .gitattributes, .gitignore and .mailmap with their NTFS short names', () => {
  for (const family of FAMILIES) {
    for (const name of family.yes) assert.equal(family.is(name), true, `${JSON.stringify(name)} is ${family.name}`);
    for (const name of family.no) assert.equal(family.is(name), false, `${JSON.stringify(name)} is not ${family.name}`);
  }
  assert.equal(isDotGitmodules('.git'), false);
  assert.equal(isDotGit('.gitmodules'), false);
});

test('byte form reads only [start, end) of a larger buffer, and a NUL ends the name', () => {
  const buf = Buffer.from('xx.gitmodulesyy.GIT\0zz');
  assert.equal(isDotGitmodules(buf, 2, 13), true);
  assert.equal(isDotGitmodules(buf, 2, 14), false);
  assert.equal(isDotGitmodules(buf, 1, 13), false);
  assert.equal(isDotGit(buf, 15, 19), true);
  assert.equal(isDotGit(buf, 15, 22), true, 'NUL terminates, as for a C filesystem call');
  assert.equal(isDotGit(buf, 15, 18), false, '.GI');
  assert.equal(isDotGit(buf, 2, 6), true, '.git is a prefix of .gitmodules when cut at 4 bytes');
  assert.equal(isDotGit(buf, 2, 7), false);
  assert.equal(isDotGit(buf, 15, 1000), true, 'an end past the buffer is clamped');
});

test('HFS+ rules decode UTF-8 strictly, as git does', () => {
  const bytes = (...parts: (string | number[])[]): Buffer =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
  // U+200C as UTF-8 is E2 80 8C: ignorable.
  assert.equal(isDotGit(bytes('.g', [0xe2, 0x80, 0x8c], 'it')), true);
  // Malformed UTF-8 reads as the end of the name in git, so a trailing bad byte still means .git.
  assert.equal(isDotGit(bytes('.git', [0xff])), true);
  assert.equal(isDotGit(bytes('.git', [0xe2, 0x80])), true);
  // ... and a malformed byte before the needle is complete means "not .git".
  assert.equal(isDotGit(bytes('.gi', [0xff], 't')), false);
  // Overlong and surrogate encodings are malformed, never read as the ASCII or ignorable they spell.
  assert.equal(isDotGit(bytes('.g', [0xc1, 0xa9], 't')), false, 'overlong i');
  assert.equal(isDotGit(bytes('.g', [0xe0, 0x80, 0xe9], 't')), false);
  assert.equal(isDotGit(bytes('.g', [0xed, 0xa0, 0x80], 'it')), false, 'surrogate');
  assert.equal(isDotGit(bytes('.g', [0xef, 0xbb, 0xbf], 'it')), true, 'U+FEFF');
  assert.equal(isDotGit(bytes('.g', [0xef, 0xbf, 0xbe], 'it')), false, 'U+FFFE is malformed for git');
  assert.equal(isDotGit(bytes('.g', [0xf0, 0x9f, 0x98, 0x80], 'it')), false, 'other code points count');
});

test('componentProblem gives the first reason a name may not be checked out', () => {
  const FILE = 0o100644, EXEC = 0o100755, LINK = 0o120000, DIR = 0o040000, GITLINK = 0o160000;
  const table: [string, number, PathProblem | null][] = [
    ['a', FILE, null], ['.gitfoo', FILE, null], ['git', DIR, null], ['.git~1x', FILE, null], ['a\\b', FILE, null],
    ['..a', FILE, null], ['...', FILE, null], ['git~5', DIR, null], ['x', GITLINK, null],
    ['', FILE, 'emptyName'], ['a\0b', FILE, 'nulInName'], ['\0', DIR, 'nulInName'], ['a/b', FILE, 'fullPathname'],
    ['/', DIR, 'fullPathname'], ['.git/x', FILE, 'fullPathname'], ['.', DIR, 'hasDot'], ['..', DIR, 'hasDotdot'],
    ['.git', DIR, 'hasDotgit'], ['.git', FILE, 'hasDotgit'], ['.git', LINK, 'hasDotgit'], ['.Git', GITLINK, 'hasDotgit'],
    ['GIT~1', DIR, 'hasDotgit'], ['git~2', DIR, 'hasDotgit'], ['.git.', EXEC, 'hasDotgit'],
    ['.git::$INDEX_ALLOCATION', DIR, 'hasDotgit'], ['.g\u200cit', DIR, 'hasDotgit'], ['.git\\hooks', FILE, 'hasDotgit'],
    ['sub\\.git', FILE, 'hasDotgit'],
    ['.gitmodules', FILE, null], ['.gitmodules', LINK, 'gitmodulesSymlink'], ['gitmod~1', LINK, 'gitmodulesSymlink'],
    ['gi7eba~1', LINK, 'gitmodulesSymlink'], ['.GITMODULES .', LINK, 'gitmodulesSymlink'],
    ['.gitattributes', FILE, null], ['.gitattributes', LINK, 'gitattributesSymlink'], ['gi7d29~1', LINK, 'gitattributesSymlink'],
    ['.gitignore', EXEC, null], ['.gitignore', LINK, 'gitignoreSymlink'], ['gi250a~1', LINK, 'gitignoreSymlink'],
    ['.mailmap', FILE, null], ['.mailmap', LINK, 'mailmapSymlink'], ['maba30~1', LINK, 'mailmapSymlink'],
    ['.gitmodules', 0o120777, 'gitmodulesSymlink'],
  ];
  for (const [name, mode, want] of table) {
    assert.equal(componentProblem(name, mode), want, `${JSON.stringify(name)} mode ${mode.toString(8)}`);
    const padded = Buffer.concat([Buffer.from('//'), Buffer.from(name), Buffer.from('/')]);
    assert.equal(componentProblem(padded, mode, 2, padded.length - 1), want, `${JSON.stringify(name)} as bytes`);
  }
});

/**
 * The oracle: put each name in a tree (as a blob and as a symlink) and ask `git fsck` which ids it
 * raises. Ours must raise the same, except where tsgit is deliberately stricter.
 */
test('git fsck flags exactly the names our matchers flag', () => {
  const dir = tmpDir();
  try {
    git(dir, ['init', '-q', '--bare', '.']);
    const blob = git(dir, ['hash-object', '-w', '--stdin'], 'x\n').trim();
    const oid = Buffer.from(blob, 'hex');
    const names: Buffer[] = [...new Set([...DOT_GIT_YES, ...DOT_GIT_NO, ...FAMILIES.flatMap((f) => [...f.yes, ...f.no])])]
      .filter((n) => n !== '').map((n) => Buffer.from(n));
    // Malformed UTF-8 around the needle: git reads a bad sequence as the end of the name.
    for (const hex of ['2e676974ff', '2e6769ff74', '2e67c1a974', '2e67eda08069 74', '2e676974e280', '2e67e2808c6974',
      '2e6769746d6f64756c6573c0', '2e6d61696c6d6170ff']) names.push(Buffer.from(hex.replace(/ /g, ''), 'hex'));
    const expected = new Map<string, { name: string; mode: string; ids: Set<string> }>();
    for (const raw of names) {
      const name = raw.toString('latin1');
      for (const mode of ['100644', '120000']) {
        const content = Buffer.concat([Buffer.from(`${mode} `), raw, Buffer.from([0]), oid]);
        const tree = git(dir, ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], content).trim();
        const ids = new Set<string>();
        const isLink = mode === '120000';
        if (name.includes('/')) ids.add('fullPathname');
        if (name === '.') ids.add('hasDot');
        if (name === '..') ids.add('hasDotdot');
        if (isDotGit(raw)) ids.add('hasDotgit');
        if (isLink && isDotGitmodules(raw)) ids.add('gitmodulesSymlink');
        if (isLink && isDotGitattributes(raw)) ids.add('gitattributesSymlink');
        if (isLink && isDotGitignore(raw)) ids.add('gitignoreSymlink');
        if (isLink && isDotMailmap(raw)) ids.add('mailmapSymlink');
        expected.set(tree, { name, mode, ids });
      }
    }
    const seen = new Map<string, Set<string>>();
    const out = spawnSync('git', ['fsck', '--full'], { cwd: dir, env: GIT_ENV, encoding: 'utf8' }).stderr;
    for (const m of out.matchAll(/^(?:error|warning) in tree ([0-9a-f]{40}): (\w+):/gm)) {
      if (!seen.has(m[1]!)) seen.set(m[1]!, new Set());
      seen.get(m[1]!)!.add(m[2]!);
    }
    let compared = 0;
    for (const [tree, { name, mode, ids }] of expected) {
      const gitIds = seen.get(tree) ?? new Set<string>();
      // Deliberately stricter than git: other regular short names of .git, and the backslash rule
      // applied to every dot-file rather than only .git and .gitmodules.
      if (/^(x\\)?git~[2-4]/i.test(name)) gitIds.add('hasDotgit');
      if (mode === '120000' && /\\/.test(name) && /attributes|ign|mailmap/i.test(name)) {
        for (const id of ids) if (id !== 'hasDotgit') gitIds.add(id);
      }
      assert.deepEqual([...ids].sort(), [...gitIds].sort(), `${JSON.stringify(name)} mode ${mode}`);
      compared++;
    }
    assert.ok(compared > 350, `compared ${compared} trees`);
    assert.ok([...seen.values()].some((s) => s.has('hasDotgit')), 'git flagged something');
  } finally {
    rmrf(dir);
  }
});

test('mayNameDotFile says yes to every name a matcher accepts (the gate fsck and checkout put before them)', () => {
  const matchers = [isDotGit, isDotGitmodules, isDotGitattributes, isDotGitignore, isDotMailmap];
  const check = (bytes: Uint8Array): boolean => {
    const matched = matchers.some((m) => m(bytes, 0, bytes.length));
    if (matched) assert.ok(mayNameDotFile(bytes, 0, bytes.length), `${JSON.stringify(Buffer.from(bytes).toString('latin1'))} matched but the gate said no`);
    return matched;
  };
  // The spellings of the tables above, and random names over an alphabet that can spell them:
  // letters of every needle and its short names, digits, tildes, dots, spaces, colons,
  // separators, and the UTF-8 of HFS+'s ignorable code points and of other non-ASCII text.
  for (const name of [...DOT_GIT_YES, ...DOT_GIT_NO]) check(new TextEncoder().encode(name));
  const pieces = ['.', 'g', 'G', 'i', 'I', 't', 'T', 'm', 'M', 'o', 'd', 'u', 'l', 'e', 's', 'a', 'r', 'b', 'n', 'p', 'c',
    '7', 'e', 'b', 'a', '2', '5', '0', '9', '3', '~', '1', '4', ' ', ':', '\\', '/', 'x',
    '\u200c', '\u200f', '\u202a', '\u206f', '\ufeff', '\u00e9', '\u200b'].map((p) => new TextEncoder().encode(p));
  const words = ['.git', 'git~1', 'gitmodules', '.gitmodules', 'gitmod~1', 'gi7eba~1', 'gitattributes', 'gi7d29~2', 'gitign~3',
    'gi250a~4', '.mailmap', 'mailma~1', 'maba30~1', '~1', '~12'].map((w) => new TextEncoder().encode(w));
  const random = seededInt(12345);
  let matched = 0;
  for (let k = 0; k < 200_000; k++) {
    const parts: Uint8Array[] = [];
    const length = 1 + random(6);
    for (let j = 0; j < length; j++) parts.push(random(3) === 0 ? words[random(words.length)]! : pieces[random(pieces.length)]!);
    if (check(Buffer.concat(parts))) matched++;
  }
  // Enough of the random names are special for the property to have been exercised.
  assert.ok(matched > 5000, `only ${matched} random names matched`);
});
