// The attribute lookup behind checkout's conversions, against `git check-attr`: gitignore-style
// patterns (wildmatch with **, classes, escapes, anchoring), nested .gitattributes files, macros,
// `-`, `!` and values, and which file wins; and what git prints about the lines it skips.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { AttributeChecker, type AttrFrame } from '../src/worktree/attributes/check.js';
import type { AttrValue } from '../src/worktree/attributes/rules.js';
import { WM_PATHNAME, wildmatch } from '../src/core/wildmatch.js';
import { GIT_ENV, git, rmrf, tmpDir, tsgit } from './helpers.js';
import { cloneNoCheckout, compareWithGit, fastImport, removeScratch, repoWith, scratch, snapshot, type FileSpec } from './checkout-oracle.js';

afterEach(removeScratch);

const NAMES = ['a1', 'a2', 'a3', 'a4', 'a5', 'text', 'diff', 'merge', 'eol', 'm1', 'm2'];

const FILES: Record<string, string> = {
  '.gitattributes': [
    '*.c a1', '*.[ch] a2=brackets', '[!x]*.h a3', '**/deep/** a4', 'a/**/z.txt a5=ddstar', 'docs/*.md a1=docs',
    '/root.txt a2=anchored', 'sub/ a3=dir-only', '\\#hash a4=escaped', '*.bin binary', '*.both text -text',
    '[attr]mymacro m1 m2=two -a5', '*.mac mymacro', '*.unset a1 !a1', 'Makefile a2=make', '*.TXT a3=upper',
    '*[[:digit:]]* a5=digit', '"quoted name.txt" a1=quoted', 'x?y a2=question', '*~ a3=tilde', 'a/b/c/*.md a4=deepmd',
    '**/foo a5=anyfoo', '*.fwd text eol=crlf', '-not-a-pattern a1', 'negated !', '!neg a1',
  ].join('\n') + '\n',
  'sub/.gitattributes': ['*.c a1=sub -a2', '*.txt a2=subtxt', '[attr]ignored a5', 'inner/** a3=inner', 'root.txt a4=subroot'].join('\n') + '\n',
  'sub/inner/.gitattributes': '*.c !a1 a3=innermost\n',
};

const PATHS = [
  'x.c', 'x.h', 'xx.h', 'y.h', 'lib/x.c', 'lib/y.h', 'a/deep/b/c.txt', 'deep/x', 'a/z.txt', 'a/b/z.txt', 'a/b/c/z.txt',
  'docs/a.md', 'docs/x/a.md', 'other/docs/a.md', 'root.txt', 'sub/root.txt', 'sub', 'sub/x.c', 'sub/inner/x.c',
  'sub/inner/deeper/x.c', 'sub/y.txt', '#hash', 'f.bin', 'f.both', 'f.mac', 'f.unset', 'Makefile', 'dir/Makefile',
  'A.TXT', 'a.txt', 'file9', 'quoted name.txt', 'xzy', 'x/y', 'backup~', 'a/b/c/x.md', 'foo', 'a/b/foo', 'foo/bar',
  'f.fwd', 'neg', 'negated',
];

test('attribute values match git check-attr for patterns, nesting, macros and precedence', () => {
  const repo = tmpDir('tsgit-attr-');
  try {
    git(repo, ['init', '-q', '.']);
    for (const [name, text] of Object.entries(FILES)) {
      fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
      fs.writeFileSync(path.join(repo, name), text);
    }
    fs.mkdirSync(path.join(repo, '.git', 'info'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.git', 'info', 'attributes'), 'Makefile a2=info\n*.c a5=info\n');
    const out = git(repo, ['check-attr', ...NAMES, '--', ...PATHS]);
    const expected = new Map<string, string>();
    for (const line of out.trim().split('\n')) {
      const m = /^(.*): (\S+): (.*)$/.exec(line)!;
      expected.set(`${m[1]} ${m[2]}`, m[3]!);
    }
    const checker = new AttributeChecker({
      root: Buffer.from(FILES['.gitattributes']!),
      info: { data: fs.readFileSync(path.join(repo, '.git', 'info', 'attributes')), name: '.git/info/attributes' },
    });
    const sub = checker.frameFor(Buffer.from('sub'), Buffer.from(FILES['sub/.gitattributes']!), 'sub/.gitattributes');
    const inner = checker.frameFor(Buffer.from('sub/inner'), Buffer.from(FILES['sub/inner/.gitattributes']!), 'sub/inner/.gitattributes');
    const framesFor = (p: string): AttrFrame[] => {
      const frames = [checker.rootFrame!];
      if (p.startsWith('sub/')) frames.unshift(sub);
      if (p.startsWith('sub/inner/')) frames.unshift(inner);
      return frames;
    };
    const show = (v: AttrValue | undefined): string => v === undefined || v === null ? 'unspecified' : v === true ? 'set' : v === false ? 'unset' : v;
    const mismatches: string[] = [];
    for (const p of PATHS) {
      const values = checker.check(Buffer.from(p), framesFor(p), NAMES);
      for (const name of NAMES) {
        const want = expected.get(`${p} ${name}`);
        const got = show(values.get(name));
        if (want !== got) mismatches.push(`${p} ${name}: git ${want}, tsgit ${got}`);
      }
    }
    assert.deepEqual(mismatches, []);
    assert.ok(checker.warnings.includes('[attr]ignored a5 not allowed: sub/.gitattributes:3'), checker.warnings.join('\n'));
    assert.ok(checker.warnings.some(w => /^warning: Negative patterns are ignored/.test(w)), checker.warnings.join('\n'));
  } finally {
    rmrf(repo);
  }
});

test('wildmatch follows git\'s rules for ** and classes', () => {
  const cases: [string, string, boolean][] = [
    ['**/foo', 'foo', true], ['**/foo', 'a/b/foo', true], ['a/**/b', 'a/b', true], ['a/**/b', 'a/x/y/b', true],
    ['a/**', 'a/x/y', true], ['a/*', 'a/x/y', false], ['a/*/b', 'a/x/b', true], ['a/*/b', 'a/x/y/b', false],
    ['*.c', 'x/y.c', false], ['[a-c]x', 'bx', true], ['[!a-c]x', 'bx', false], ['[^a-c]x', 'dx', true],
    ['\\*', '*', true], ['\\*', 'x', false], ['[[:upper:]]*', 'Abc', true], ['[[:upper:]]*', 'abc', false],
    ['a?c', 'a/c', false], ['x**y', 'x/a/y', false], ['[a-]x', '-x', true], ['[]]x', ']x', true],
  ];
  for (const [pattern, text, want] of cases) {
    const p = Buffer.from(pattern), t = Buffer.from(text);
    assert.equal(wildmatch(p, 0, p.length, t, 0, t.length, WM_PATHNAME), want, `${pattern} ~ ${text}`);
  }
});

// ---- what git prints about the lines it skips -------------------------------------------------------

test('checkout, clone and switch print git\'s warnings about attributes lines, once per file read, in git\'s order', () => {
  const long = `${'x'.repeat(2100)} text`;
  const files: FileSpec[] = [
    // CRLF endings: git reads these from the index, so a CR stays in the line it prints.
    { mode: '100644', path: '.gitattributes', data: `!neg text\r\n*.c bad:name\r\n${long}\r\n[attr]ok -text\r\n*.u working-tree-encoding=ISO-8859-1\r\n` },
    // Line 4: git reports the invalid name, not the negative pattern.
    { mode: '100644', path: 'a/.gitattributes', data: '[attr]x text\r\n"[attr]quoted" -text\n!y\n!"quoted name" text\n' },
    { mode: '100644', path: 'a/euro.u', data: '\u20ac\n' },
    { mode: '100644', path: 'a/f.c', data: 'a\n' },
    { mode: '120000', path: 'b/link', data: '../a/f.c' },
    { mode: '100644', path: 'b/.gitattributes', data: '* -ok=x b@d\n' },
    { mode: '100644', path: 'c/x.u', data: '\u20ac\n' },
    { mode: '100644', path: 'z.u', data: '\u20ac\n' },
  ];
  const src = repoWith(files);
  const global = path.join(scratch('tsgit-attr-global-'), 'attributes');
  fs.writeFileSync(global, '!z\nbad:x y\n[attr]m -a:b\n');
  const ours = cloneNoCheckout(src, [`core.attributesFile=${global}`]);
  const theirs = cloneNoCheckout(src, [`core.attributesFile=${global}`]);
  for (const wt of [ours, theirs]) {
    fs.mkdirSync(path.join(wt, '.git', 'info'), { recursive: true });
    fs.writeFileSync(path.join(wt, '.git', 'info', 'attributes'), 'q bad:info\n');
  }
  const r = tsgit(ours, ['checkout', '-q']);
  const g = spawnSync('git', ['checkout', '-q'], { cwd: theirs, env: GIT_ENV });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(g.status, 0, g.stderr.toString());
  const expected = g.stderr.toString();
  // Spot checks that git really said all this (a tsgit and a git both silent would agree).
  for (const line of ['bad:name is not a valid attribute name: .gitattributes:2', 'warning: ignoring overly long attributes line 3',
    'bad:info is not a valid attribute name: .git/info/attributes:1', '[attr]x text\r not allowed: a/.gitattributes:1',
    '[attr]quoted not allowed: a/.gitattributes:2', "error: failed to encode 'a/euro.u' from UTF-8 to ISO-8859-1",
    `a:b is not a valid attribute name: ${global}:3`, 'name" is not a valid attribute name: a/.gitattributes:4', 'b@d is not a valid attribute name: b/.gitattributes:1']) {
    assert.ok(expected.split('\n').includes(line), `git printed:\n${expected}\nnot ${JSON.stringify(line)}`);
  }
  assert.equal(r.stderr.toString(), expected);
  assert.deepEqual(snapshot(ours), snapshot(theirs));

  // A quiet clone prints them too (no info/attributes there).
  const parent = scratch('tsgit-attr-clone-');
  const rc = tsgit(parent, ['clone', '-q', '-c', `core.attributesFile=${global}`, src, 'ours']);
  const gc = spawnSync('git', ['clone', '-q', '-c', `core.attributesFile=${global}`, src, 'theirs'], { cwd: parent, env: GIT_ENV });
  assert.equal(rc.status, 0, rc.stderr.toString());
  assert.equal(gc.status, 0);
  assert.match(gc.stderr.toString(), /\[attr\]x text\r not allowed/);
  assert.equal(rc.stderr.toString(), gc.stderr.toString());

  // A switch reads the files of the directories it writes in, and the top-level ones: not a/'s here.
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/two', [{ mode: '100644', path: 'c/x.u', data: 'two \u20ac\n' }], 'refs/heads/main'));
  for (const wt of [ours, theirs]) {
    git(wt, ['fetch', '-q', 'origin', 'two:two']);
    // Stat data alone must prove the files clean, or git reads them back (with attributes) first.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(wt, '.git', 'index'), later, later);
  }
  const rs = tsgit(ours, ['checkout', '-q', 'two']);
  const gs = spawnSync('git', ['checkout', '-q', 'two'], { cwd: theirs, env: GIT_ENV });
  assert.equal(rs.status, 0, rs.stderr.toString());
  assert.equal(gs.status, 0, gs.stderr.toString());
  assert.match(gs.stderr.toString(), /failed to encode 'c\/x\.u'/);
  assert.doesNotMatch(gs.stderr.toString(), /a\/\.gitattributes/);
  assert.equal(rs.stderr.toString(), gs.stderr.toString());
  assert.deepEqual(snapshot(ours), snapshot(theirs));
});

test('only a file named exactly .gitattributes is read, with core.ignoreCase too, as in git', () => {
  const src = repoWith([
    { mode: '100644', path: '.GITATTRIBUTES', data: '* text eol=crlf\n' },
    { mode: '100644', path: 'a.txt', data: 'a\nb\n' },
    { mode: '100644', path: 'sub/.GitAttributes', data: '* text eol=crlf\n' },
    { mode: '100644', path: 'sub/.gitattributes', data: '*.crlf text eol=crlf\n' },
    { mode: '100644', path: 'sub/b.txt', data: 'a\nb\n' },
    { mode: '100644', path: 'sub/c.crlf', data: 'a\nb\n' },
  ]);
  for (const config of [[], ['core.ignoreCase=true']]) {
    const { ours } = compareWithGit(src, config);
    assert.equal(fs.readFileSync(path.join(ours, 'a.txt'), 'latin1'), 'a\nb\n');
    assert.equal(fs.readFileSync(path.join(ours, 'sub/b.txt'), 'latin1'), 'a\nb\n');
    assert.equal(fs.readFileSync(path.join(ours, 'sub/c.crlf'), 'latin1'), 'a\r\nb\r\n');
  }
});
