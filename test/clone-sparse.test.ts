// clone --sparse against git's: the sparse checkout it starts (cone mode, the top level alone),
// the config, config.worktree and patterns file it writes, the work tree and index; with
// --filter=blob:none (or tree:0, whose trees come first), the blobs it fetches (those of the
// files it writes, no others), at the clone or at each later checkout; with --no-checkout, the
// settings alone; with --bare, git's failure.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { git, rmrf } from './helpers.js';
import { removeScratch, scratch } from './checkout-oracle.js';
import { assertSameOutcome, branchesRepo, runTool, type Run } from './sparse-oracle.js';

afterEach(removeScratch);

let src: string;
before(() => {
  src = branchesRepo();
  git(src, ['config', 'uploadpack.allowFilter', 'true']);
});
after(() => rmrf(src));

/** Clones with tsgit and with git, each into a directory of its own. */
function cloneBoth(args: string[], url = src): { ours: Run; theirs: Run } {
  const run = (tool: 'tsgit' | 'git'): Run => {
    const parent = scratch(`tsgit-clone-sparse-${tool}-`);
    const r = runTool(tool, parent, ['clone', ...args, url, 'c']);
    return { ...r, dir: path.join(parent, 'c') };
  };
  return { ours: run('tsgit'), theirs: run('git') };
}

/** Objects the clone lacks, as git lists them. */
const missing = (dir: string): string =>
  git(dir, ['rev-list', '--objects', '--all', '--missing=print']).split('\n').filter(l => l.startsWith('?')).sort().join('\n');

describe('clone --sparse', () => {
  it('checks out the top-level files alone, in cone mode', () => {
    const { ours, theirs } = cloneBoth(['-q', '--sparse']);
    assertSameOutcome(ours, theirs);
    assert.equal(ours.status, 0, ours.stderr);
    assert.deepEqual(fs.readdirSync(ours.dir).sort(), ['.git', 'top.md', 'top.txt']);
  });

  // With tree:0 the commit's trees are fetched first, as git's checkout fetches each it meets.
  for (const filter of ['blob:none', 'tree:0']) it(`with --filter=${filter} fetches the blobs of those files alone`, () => {
    const url = `file://${src}`;
    const { ours, theirs } = cloneBoth(['-q', '--sparse', `--filter=${filter}`], url);
    assert.equal(ours.status, 0, ours.stderr);
    assert.equal(missing(ours.dir), missing(theirs.dir));
    assert.notEqual(missing(ours.dir), '');
    assertSameOutcome(ours, theirs);
  });

  it('with --no-checkout records the sparse checkout and writes nothing', () => {
    const { ours, theirs } = cloneBoth(['-q', '--sparse', '--no-checkout']);
    assertSameOutcome(ours, theirs);
    assert.equal(fs.existsSync(path.join(ours.dir, '.git', 'index')), false);
  });

  it('then sparse-checkout set and checkout write the cone, as git', () => {
    const { ours, theirs } = cloneBoth(['-q', '--sparse', '--no-checkout']);
    for (const [tool, r] of [['tsgit', ours], ['git', theirs]] as const) {
      assert.equal(runTool(tool, r.dir, ['sparse-checkout', 'set', 'in', 'd/x']).status, 0);
      const c = runTool(tool, r.dir, ['checkout', '-q', 'A']);
      assert.equal(c.status, 0, c.stderr);
    }
    assertSameOutcome(ours, theirs);
  });

  const laterCheckouts: [string, [string, string[]][]][] = [
    ['cone mode', [['set', ['sparse-checkout', 'set', 'in', 'd/x']], ['checkout', ['checkout', '-q', 'A']],
      ['switch', ['checkout', '-q', 'origin/B']], ['widen', ['sparse-checkout', 'add', 'out']]]],
    // A file written back needs its directory's .gitattributes, which is not: fetched too.
    ['gitignore patterns, whose .gitattributes git reads everywhere', [['set', ['sparse-checkout', 'set', 'in']], ['checkout', ['checkout', '-q', 'A']],
      ['a file out of a directory', ['sparse-checkout', 'set', '--no-cone', '/in/', '/out/chg.txt']]]],
    // Git reads no .gitattributes of a directory it writes nothing in, and every one above a file it writes.
    ['gitignore patterns from the start', [['set', ['sparse-checkout', 'set', '--no-cone', '/in/']], ['checkout', ['checkout', '-q', 'A']]]],
    ['gitignore patterns from the start, a file out of a directory', [['set', ['sparse-checkout', 'set', '--no-cone', '/out/chg.txt']],
      ['checkout', ['checkout', '-q', 'A']]]],
  ];
  for (const [name, steps] of laterCheckouts) it(`a partial clone checked out later fetches what each step writes, as git does on demand: ${name}`, () => {
    const { ours, theirs } = cloneBoth(['-q', '--filter=blob:none', '--no-checkout'], `file://${src}`);
    for (const [step, args] of steps) {
      for (const [tool, r] of [['tsgit', ours], ['git', theirs]] as const) {
        const c = runTool(tool, r.dir, args);
        assert.equal(c.status, 0, `${tool} ${step}: ${c.stderr}`);
      }
      assert.equal(missing(ours.dir), missing(theirs.dir), step);
    }
    assertSameOutcome(ours, theirs);
  });

  it('fails in a bare clone, as git does, and leaves nothing', () => {
    const { ours, theirs } = cloneBoth(['--sparse', '--bare']);
    assert.equal(ours.status, 1);
    assert.equal(ours.status, theirs.status);
    assert.equal(ours.stderr, theirs.stderr);
    assert.equal(fs.existsSync(ours.dir), false);
  });
});
