// tsgit sparse-checkout against git 2.39's, each subcommand run in a clone prepared the same way
// (sparse-oracle.ts): the config and config.worktree it writes, the patterns file byte for byte,
// the work tree and index it leaves, its output and exit status. Cone mode and gitignore-style
// patterns, arguments from the command line and from stdin, the checks on them, files that
// leave the patterns modified, directories left with untracked files, errors.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { GIT_ENV, git, rmrf } from './helpers.js';
import { indexWithoutStat, removeScratch, scratch, snapshot } from './checkout-oracle.js';
import { assertSameOutcome, branchesRepo, runTool, sideBySide, writeFiles, type SideOptions } from './sparse-oracle.js';

afterEach(removeScratch);

let src: string;
before(() => { src = branchesRepo(); });
after(() => rmrf(src));

const gitSparse = (...args: string[]) => (dir: string): void => { git(dir, ['sparse-checkout', ...args]); };
const then = (...steps: ((dir: string) => void)[]) => (dir: string): void => { for (const step of steps) step(dir); };
const patternsFile = (text: string) => (dir: string): void => {
  fs.mkdirSync(path.join(dir, '.git', 'info'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.git', 'info', 'sparse-checkout'), text);
};

/** A merge that stops on a conflict in in/keep.txt. */
function conflict(dir: string): void {
  git(dir, ['checkout', '-q', '-b', 'other']);
  writeFiles(dir, { 'in/keep.txt': 'theirs\n' });
  git(dir, ['commit', '-q', '-am', 'theirs']);
  git(dir, ['checkout', '-q', 'A']);
  writeFiles(dir, { 'in/keep.txt': 'ours\n' });
  git(dir, ['commit', '-q', '-am', 'ours']);
  assert.equal(spawnSync('git', ['merge', '-q', 'other'], { cwd: dir, env: GIT_ENV }).status, 1);
}

interface Case extends SideOptions {
  name: string;
  args: string[];
  status?: number;
}

function compare(cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const { ours, theirs } = sideBySide(src, ['sparse-checkout', ...c.args], c);
      assertSameOutcome(ours, theirs);
      assert.equal(ours.status, c.status ?? 0, ours.stderr);
    });
  }
}

describe('sparse-checkout set', () => compare([
  { name: 'cone mode by default: directories, a nested one with its parent', args: ['set', 'in', 'd/x'] },
  { name: 'cone mode: directories inside others are dropped, trailing slashes and "./" taken', args: ['set', 'in', 'in/x', 'd/', './d/x/y', 'fresh'] },
  { name: 'cone mode: nothing but the top level', args: ['set'] },
  { name: 'cone mode from stdin: C-quoted lines, blanks, ".." resolved', args: ['set', '--stdin'],
    input: 'd/x\n"in"\n  d/z  \n\nout/../top-dir/..\nd/x/y/../y\n' },
  { name: 'gitignore patterns: globs, negation, directories, an escaped trailing space', args: ['set', '--no-cone', '*.md', 'in/', '!in/gone.txt', 'd/x/*', 'trail\\ '] },
  { name: 'gitignore patterns: none given is the top level', args: ['set', '--no-cone'] },
  { name: 'gitignore patterns from stdin, a tracked file named alone (warning)', args: ['set', '--no-cone', '--stdin', 'top.txt'], input: '/*\n!/*/\nd/z/\n' },
  { name: 'cone mode from a subdirectory: paths from there', args: ['set', 'x', '../in'], cwd: 'd' },
  { name: 'an unknown option is a pattern, as in git', args: ['set', '--bogus'] },
  { name: 'switching an existing sparse checkout to other directories', args: ['set', 'out', 'd'], prepare: gitSparse('set', 'in', 'd/x') },
  { name: 'from cone mode to gitignore patterns', args: ['set', '--no-cone', '/d/x/'], prepare: gitSparse('set', 'in') },
  { name: 'a modified file leaving the patterns stays, with a warning; a clean one goes', args: ['set', 'd'],
    prepare: dir => writeFiles(dir, { 'in/keep.txt': 'mine\n' }) },
  { name: 'a directory leaving the cone with an untracked file stays, with a warning; an empty one goes', args: ['set', 'd/x'],
    prepare: dir => { writeFiles(dir, { 'in/untracked.txt': 'mine\n' }); fs.mkdirSync(path.join(dir, 'out', 'empty', 'deeper'), { recursive: true }); } },
  { name: 'a smudge filter runs for the files written back', args: ['set', 'in', 'out'],
    prepare: then(gitSparse('set', 'd'), dir => {
      fs.writeFileSync(path.join(dir, '.git', 'info', 'attributes'), '*.txt filter=log\n');
      git(dir, ['config', 'filter.log.smudge', `sh -c 'echo "$1" >> .git/smudged; cat' -- %f`]);
      git(dir, ['config', 'filter.log.clean', 'cat']);
    }) },
  { name: 'before anything is checked out: the file alone', args: ['set', 'in'], clone: ['-q', '-n'] },
  { name: 'an unmerged path is left as it is, with a warning', args: ['set', 'd'], prepare: conflict },
  { name: 'sparse.expectFilesOutsideOfPatterns: a file there where a path comes back in is left, with a warning', args: ['set', 'in', 'out'],
    prepare: then(gitSparse('set', 'in'), dir => {
      git(dir, ['config', 'sparse.expectFilesOutsideOfPatterns', 'true']);
      writeFiles(dir, { 'out/keep.txt': 'mine\n' });
    }) },
  { name: 'extensions.worktreeConfig already on', args: ['set', 'in'], prepare: dir => { git(dir, ['config', 'extensions.worktreeConfig', 'true']); } },
  { name: '--no-sparse-index recorded after the mode', args: ['set', '--no-sparse-index', 'in'] },
  { name: 'a leading slash is refused in cone mode', args: ['set', '/in'], status: 128 },
  { name: 'wildcards are refused in cone mode', args: ['set', 'i*'], status: 128 },
  { name: 'a leading "!" is refused in cone mode', args: ['set', '!in'], status: 128 },
  { name: 'a tracked file is refused in cone mode', args: ['set', 'top.txt'], status: 128 },
  { name: '--skip-checks takes them all', args: ['set', '--skip-checks', 'top.txt', 'i*'] },
  { name: 'a path climbing out of the work tree is refused', args: ['set', '../x'], status: 128 },
  { name: 'gitignore patterns only from the top level', args: ['set', '--no-cone', 'x'], cwd: 'd', status: 128 },
]));

describe('sparse-checkout add, list, init, reapply, disable', () => compare([
  { name: 'add in cone mode: merged with the directories there', args: ['add', 'd/x', 'in/deeper'], prepare: gitSparse('set', 'in', 'out') },
  { name: 'add to gitignore patterns: appended', args: ['add', '!out/chg.txt', 'out/'], prepare: gitSparse('set', '--no-cone', '*.md', '# kept?') },
  { name: 'add without a sparse checkout', args: ['add', 'in'], status: 128 },
  { name: 'add in cone mode to a file of other patterns', args: ['add', 'in'], status: 128,
    prepare: then(gitSparse('set', 'out'), patternsFile('/*\n!/*/\n*.md\n')) },
  { name: 'list in cone mode: the directories, C-quoted', args: ['list'], prepare: gitSparse('set', 'in', 'd/x', 'sp ace', 'tab\there') },
  { name: 'list of gitignore patterns: as parsed', args: ['list'], prepare: then(gitSparse('set', '--no-cone', 'x'), patternsFile('# c\n*.md  \n!/out/\n\nin/\n')) },
  { name: 'list without a sparse checkout', args: ['list'], status: 128 },
  { name: 'list without a patterns file', args: ['list'], prepare: dir => { git(dir, ['config', 'core.sparseCheckout', 'true']); } },
  { name: 'init: cone mode, the top level', args: ['init'] },
  { name: 'init --no-cone', args: ['init', '--no-cone'] },
  { name: 'init with a patterns file there: applied', args: ['init'], prepare: patternsFile('/*\n!/*/\n/out/\n') },
  { name: 'reapply after the file was edited by hand', args: ['reapply'], prepare: then(gitSparse('set', 'in'), patternsFile('/*\n!/*/\n/d/\n')) },
  { name: 'reapply --no-cone reads the file as gitignore patterns', args: ['reapply', '--no-cone'], prepare: gitSparse('set', 'in', 'd/x') },
  { name: 'reapply without a sparse checkout', args: ['reapply'], status: 128 },
  { name: 'disable: everything back, the mode off', args: ['disable'], prepare: then(gitSparse('set', 'in'), dir => writeFiles(dir, { 'out/chg.txt': 'mine\n' })) },
  { name: 'disable without a sparse checkout', args: ['disable'] },
]));

describe('sparse-checkout command line', () => {
  it('--sparse-index is refused: tsgit writes no sparse index', () => {
    const { ours } = sideBySide(src, ['sparse-checkout', 'set', '--sparse-index', 'in']);
    assert.equal(ours.status, 128);
    assert.equal(ours.stderr, 'fatal: tsgit does not write a sparse index (--sparse-index); use --no-sparse-index\n');
    assert.equal(fs.existsSync(path.join(ours.dir, '.git', 'info', 'sparse-checkout')), false);
  });

  for (const args of [[], ['bogus'], ['toString'], ['list', '-x'], ['init', '--bogus']]) {
    it(`${JSON.stringify(args)}: git's error line, status 129`, () => {
      const { ours, theirs } = sideBySide(src, ['sparse-checkout', ...args], { prepare: gitSparse('set', 'in') });
      assert.equal(ours.status, 129);
      assert.equal(ours.status, theirs.status);
      assert.equal(ours.stderr.split('\n')[0], theirs.stderr.split('\n')[0]);
    });
  }
});

describe('sparse-checkout in a linked work tree', () => {
  it('has its own patterns file and config.worktree, and leaves the main work tree whole', () => {
    const run = (tool: 'tsgit' | 'git') => {
      const top = scratch(`tsgit-sparse-linked-${tool}-`);
      const main = path.join(top, 'main'), linked = path.join(top, 'linked');
      git(top, ['clone', '-q', '-b', 'A', src, main]);
      git(main, ['worktree', 'add', '-q', '--detach', linked, 'origin/B']);
      const r = runTool(tool, linked, ['sparse-checkout', 'set', 'in', 'd/x']);
      const own = path.join(main, '.git', 'worktrees', 'linked');
      const read = (file: string): string | null => (fs.existsSync(file) ? fs.readFileSync(file, 'latin1') : null);
      return {
        status: r.status, stderr: r.stderr,
        files: [path.join(main, '.git', 'config'), path.join(main, '.git', 'config.worktree'), path.join(main, '.git', 'info', 'sparse-checkout'),
          path.join(own, 'config.worktree'), path.join(own, 'info', 'sparse-checkout')].map(read),
        trees: [snapshot(main), snapshot(linked)],
        index: indexWithoutStat(path.join(own, 'index')),
        listed: git(linked, ['ls-files', '-t']),
        status2: git(linked, ['status', '--porcelain']) + git(main, ['status', '--porcelain']),
      };
    };
    const ours = run('tsgit'), theirs = run('git');
    assert.equal(ours.status, 0, ours.stderr);
    assert.deepEqual(ours, theirs);
    assert.equal(ours.files[3], '[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = true\n');
    assert.equal(ours.files[1], null);
  });
});
