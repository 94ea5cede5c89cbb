// Submodules (gitlinks) in a sparse checkout, against git: one outside the patterns gets the
// skip-worktree bit and no directory; gitignore patterns match it as a directory ("sub/") only
// when its directory is there (git 2.39 takes its type from lstat); when
// the patterns change, its empty directory goes or comes back, and a directory holding one is no
// directory git folds away (it stays while the submodule's is there).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { git } from './helpers.js';
import { removeScratch, repoWith } from './checkout-oracle.js';
import { assertSameOutcome, sideBySide } from './sparse-oracle.js';

afterEach(removeScratch);

const SUBMODULE = 'a'.repeat(40);

function gitlinksRepo(): string {
  return repoWith([
    { mode: '100644', path: 'top.txt', data: 'top\n' },
    { mode: '100644', path: 'in/a.txt', data: 'a\n' },
    { mode: '160000', path: 'in/sub', oid: SUBMODULE },
    { mode: '100644', path: 'out/b.txt', data: 'b\n' },
    { mode: '160000', path: 'out/sub', oid: SUBMODULE },
    { mode: '160000', path: 'mod/sub', oid: SUBMODULE },
  ]);
}

const cases: { name: string; args: string[]; clone: string[]; prepare: (dir: string) => void }[] = [
  { name: 'a checkout in cone mode leaves out the submodules outside', args: ['checkout', '-q'], clone: ['-q', '-n'],
    prepare: dir => { git(dir, ['sparse-checkout', 'set', 'in']); } },
  { name: 'gitignore patterns do not match a submodule not checked out as a directory', args: ['checkout', '-q'], clone: ['-q', '-n'],
    prepare: dir => { git(dir, ['sparse-checkout', 'set', '--no-cone', '/*', '!/*/', 'sub/']); } },
  { name: 'sparse-checkout set removes the directories of submodules leaving', args: ['sparse-checkout', 'set', 'in'], clone: ['-q'],
    prepare: () => {} },
  { name: 'gitignore patterns match a submodule as a directory only while its directory is there, as in git 2.39',
    args: ['sparse-checkout', 'set', '--no-cone', '/*', '!/*/', 'sub/'], clone: ['-q'], prepare: () => {} },
  { name: 'sparse-checkout set brings them back', args: ['sparse-checkout', 'set', 'in', 'out', 'mod'], clone: ['-q'],
    prepare: dir => { git(dir, ['sparse-checkout', 'set', 'in']); } },
];

describe('submodules in a sparse checkout', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { ours, theirs } = sideBySide(gitlinksRepo(), c.args, { clone: c.clone, prepare: c.prepare });
      assertSameOutcome(ours, theirs);
      assert.equal(ours.status, 0, ours.stderr);
    });
  }
});
