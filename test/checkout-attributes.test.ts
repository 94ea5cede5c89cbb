// The attribute lookup behind checkout's conversions, against `git check-attr`: gitignore-style
// patterns (wildmatch with **, classes, escapes, anchoring), nested .gitattributes files, macros,
// `-`, `!` and values, and which file wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { AttributeChecker, type AttrFrame } from '../src/worktree/attributes/check.js';
import type { AttrValue } from '../src/worktree/attributes/rules.js';
import { WM_PATHNAME, wildmatch } from '../src/worktree/attributes/wildmatch.js';
import { git, rmrf, tmpDir } from './helpers.js';

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
      info: fs.readFileSync(path.join(repo, '.git', 'info', 'attributes')),
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
    assert.ok(checker.warnings.some(w => /\[attr\]ignored not allowed/.test(w)), checker.warnings.join('\n'));
    assert.ok(checker.warnings.some(w => /negative patterns are ignored/.test(w)), checker.warnings.join('\n'));
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
