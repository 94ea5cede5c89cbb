// Checkout and switch in a sparse work tree (core.sparseCheckout with info/sparse-checkout), each
// against git doing the same in a clone prepared the same way (sparse-oracle.ts): which files are
// written and which entries get the skip-worktree bit, in cone mode and with gitignore-style
// patterns; files leaving or entering the patterns as a switch goes, or as the patterns were
// edited by hand; files present outside the patterns, modified or not; untracked files in the
// way; --force; the filters a skip-worktree path never goes through.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { GIT_ENV, git, rmrf } from './helpers.js';
import { removeScratch } from './checkout-oracle.js';
import { assertSameOutcome, branchesRepo, sideBySide, writeFiles } from './sparse-oracle.js';

afterEach(removeScratch);

/** Turns sparse checkout on with `patterns` as the file's text, in cone mode or not. */
function patterns(text: string, cone: boolean): (dir: string) => void {
  return dir => {
    git(dir, ['config', 'core.sparseCheckout', 'true']);
    git(dir, ['config', 'core.sparseCheckoutCone', String(cone)]);
    fs.mkdirSync(path.join(dir, '.git', 'info'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.git', 'info', 'sparse-checkout'), text);
  };
}

const CONE_IN_DX = '/*\n!/*/\n/d/\n!/d/*/\n/d/x/\n/in/\n';

describe('checkout of a sparse work tree from scratch', () => {
  let src: string;
  before(() => { src = branchesRepo(); });
  after(() => rmrf(src));

  const cases: { name: string; text: string; cone: boolean }[] = [
    { name: 'cone mode: a directory, a nested one and its parent', text: CONE_IN_DX, cone: true },
    { name: 'cone mode: the top level only', text: '/*\n!/*/\n', cone: true },
    { name: 'cone mode: everything ("/*" alone)', text: '/*\n', cone: true },
    { name: 'cone mode asked for, with lines that are no cone patterns (warnings, then gitignore matching)', text: '/*\n!/*/\n/in/\n/out\n', cone: true },
    { name: 'cone mode asked for, a negative line of its own', text: '/*\n!/*/\n!/in/\n', cone: true },
    { name: 'gitignore patterns: globs, negation, last match wins, directories', text: '# comment\n*.md\n/in/\nd/\n!d/x/\nd/x/y/keep.txt  \n!out/\n', cone: false },
    { name: 'gitignore patterns: a directory excluded, then one file in it', text: '/*\n!/d/\n/d/z/chg.txt\n', cone: false },
    { name: 'gitignore patterns: basenames anywhere, CRLF lines', text: 'keep.txt\r\n*.md\r\n', cone: false },
    { name: 'an empty patterns file: nothing is written', text: '', cone: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { ours, theirs } = sideBySide(src, ['checkout', '-q'], { clone: ['-q', '-n'], prepare: patterns(c.text, c.cone) });
      assertSameOutcome(ours, theirs);
      assert.equal(ours.status, 0, ours.stderr);
    });
  }

  it('writes through the smudge filter only the files inside the patterns', () => {
    const prepare = (dir: string): void => {
      patterns(CONE_IN_DX, true)(dir);
      fs.writeFileSync(path.join(dir, '.git', 'info', 'attributes'), '*.txt filter=log\n');
      git(dir, ['config', 'filter.log.smudge', `sh -c 'echo "$1" >> .git/smudged; cat' -- %f`]);
      git(dir, ['config', 'filter.log.clean', 'cat']);
      git(dir, ['config', 'filter.log.required', 'true']);
    };
    const { ours, theirs } = sideBySide(src, ['checkout', '-q'], { clone: ['-q', '-n'], prepare });
    assertSameOutcome(ours, theirs);
    const smudged = (dir: string): string => fs.readFileSync(path.join(dir, '.git', 'smudged'), 'utf8');
    assert.equal(smudged(ours.dir), smudged(theirs.dir));
    assert.doesNotMatch(smudged(ours.dir), /out\//);
  });

  it('checks out everything, as git does, when the patterns file is missing', () => {
    const prepare = (dir: string): void => { git(dir, ['config', 'core.sparseCheckout', 'true']); };
    const { ours, theirs } = sideBySide(src, ['checkout', '-q'], { clone: ['-q', '-n'], prepare });
    assertSameOutcome(ours, theirs);
    assert.ok(fs.existsSync(path.join(ours.dir, 'out', 'keep.txt')));
  });
});

describe('switching a sparse work tree', () => {
  let src: string;
  before(() => { src = branchesRepo(); });
  after(() => rmrf(src));

  /** Cone mode on `in` and `d/x` with git, then `then` in the work tree. */
  const sparse = (then: (dir: string) => void = () => {}) => (dir: string): void => {
    git(dir, ['sparse-checkout', 'set', 'in', 'd/x']);
    then(dir);
  };
  const editPatterns = (text: string) => (dir: string): void => {
    fs.writeFileSync(path.join(dir, '.git', 'info', 'sparse-checkout'), text);
  };

  const cases: { name: string; args: string[]; prepare: (dir: string) => void; status?: number }[] = [
    { name: 'to another commit: only the paths inside are written; the others change in the index alone',
      args: ['checkout', '-q', 'origin/B'], prepare: sparse() },
    { name: 'a file outside present again, modified: a local change, refused', args: ['checkout', '-q', 'origin/B'], status: 1,
      prepare: sparse(dir => writeFiles(dir, { 'out/chg.txt': 'mine\n' })) },
    { name: 'a file outside present again, unmodified: removed as the switch goes on', args: ['checkout', '-q', 'origin/B'],
      prepare: sparse(dir => writeFiles(dir, { 'out/keep.txt': 'out/keep A\n', 'd/z/chg.txt': 'd/z/chg A\n' })) },
    { name: 'a file outside present again is read back without the .gitattributes outside the cone, as git does', args: ['checkout', '-q', 'origin/B'],
      status: 1, prepare: sparse(dir => writeFiles(dir, { 'out/chg.txt': 'out/chg A\r\n' })) },
    { name: 'an untracked file where a new path outside goes: left, the entry added skip-worktree', args: ['checkout', '-q', 'origin/B'],
      prepare: sparse(dir => writeFiles(dir, { 'out/new.txt': 'untracked\n' })) },
    { name: 'an untracked file where a new path inside goes: git warns that it kept it, and writes over it', args: ['checkout', '-q', 'origin/B'],
      prepare: sparse(dir => writeFiles(dir, { 'in/new.txt': 'untracked\n' })) },
    { name: 'a local change inside the patterns is still refused', args: ['checkout', '-q', 'origin/B'], status: 1,
      prepare: sparse(dir => writeFiles(dir, { 'in/chg.txt': 'mine\n' })) },
    { name: 'patterns widened by hand: the paths now inside are written, at the same commit', args: ['checkout', '-q'],
      prepare: sparse(editPatterns('/*\n!/*/\n/d/\n!/d/*/\n/d/x/\n/in/\n/out/\n')) },
    { name: 'patterns widened by hand, switching: written at the new commit', args: ['checkout', '-q', 'origin/B'],
      prepare: sparse(editPatterns('/*\n!/*/\n/in/\n/out/\n')) },
    { name: 'patterns narrowed by hand: clean files go, a modified one stays with a warning', args: ['checkout', '-q', 'origin/B'],
      prepare: sparse(dir => { editPatterns('/*\n!/*/\n/in/\n')(dir); writeFiles(dir, { 'd/x/keep.txt': 'mine\n' }); }) },
    { name: '--force: a modified file outside goes, skip-worktree entries are left alone', args: ['checkout', '-q', '-f', 'origin/B'],
      prepare: sparse(dir => writeFiles(dir, { 'out/chg.txt': 'mine\n', 'out/keep.txt': 'mine too\n', 'in/chg.txt': 'mine\n' })) },
    { name: '--force with patterns narrowed by hand: every file outside goes', args: ['checkout', '-q', '-f'],
      prepare: sparse(dir => { editPatterns('/*\n!/*/\n')(dir); writeFiles(dir, { 'in/keep.txt': 'mine\n' }); }) },
    { name: 'gitignore patterns, switching', args: ['checkout', '-q', 'origin/B'],
      prepare: dir => { patterns('*.md\n/in/\nnew.txt\n!d/z/\n', false)(dir); git(dir, ['checkout', '-q']); } },
    { name: 'back and forth: the commit the patterns came with, after another', args: ['checkout', '-q', 'A'],
      prepare: sparse(dir => { git(dir, ['checkout', '-q', 'origin/B']); }) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { ours, theirs } = sideBySide(src, c.args, { prepare: c.prepare });
      assertSameOutcome(ours, theirs);
      assert.equal(ours.status, c.status ?? 0, ours.stderr);
    });
  }

  it('index version 3 while a skip-worktree entry is left, back to 2 without', () => {
    const { ours, theirs } = sideBySide(src, ['checkout', '-q', 'origin/B'], {
      prepare: sparse(dir => { editPatterns('/*\n')(dir); git(dir, ['config', 'core.sparseCheckoutCone', 'false']); }),
    });
    assertSameOutcome(ours, theirs);
    assert.equal(fs.readFileSync(path.join(ours.dir, '.git', 'index')).readUInt32BE(4), 2);
    assert.equal(git(ours.dir, ['ls-files', '-t'], undefined, GIT_ENV).includes('S '), false);
  });
});
