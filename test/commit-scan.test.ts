// The walk parses commits into storage it reuses from one commit to the next (CommitScan): an
// octopus merge's parents must not leak into the next commit's, every parent must be followed,
// and a commit whose header git cannot parse stops the walk, naming it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CommitScan } from '../src/object/commit.js';
import { git, makeRepo, rmrf, tsgit } from './helpers.js';

test('an octopus merge among ordinary commits: rev-list lists what git lists', () => {
  const dir = makeRepo(2);
  try {
    const tree = git(dir, ['rev-parse', 'HEAD^{tree}']).trim();
    let tip = git(dir, ['rev-parse', 'HEAD']).trim();
    const sides: string[] = [];
    for (let i = 0; i < 6; i++) {
      const blob = git(dir, ['hash-object', '-w', '--stdin'], `side ${i}\n`).trim();
      const sideTree = git(dir, ['mktree'], `100644 blob ${blob}\tside-${i}\n`).trim();
      sides.push(git(dir, ['commit-tree', sideTree, '-p', tip, '-m', `side ${i}`]).trim());
    }
    tip = git(dir, ['commit-tree', tree, ...sides.flatMap((s) => ['-p', s]), '-m', 'octopus']).trim();
    // One parent after six: a scan that kept the octopus's count would invent five parents.
    tip = git(dir, ['commit-tree', tree, '-p', tip, '-m', 'after']).trim();
    git(dir, ['update-ref', 'refs/heads/main', tip]);
    for (const args of [['rev-list', '--all'], ['rev-list', '--objects', '--all'], ['rev-list', '--count', 'main']]) {
      const r = tsgit(dir, args);
      assert.equal(r.status, 0, r.stderr.toString());
      assert.equal(r.stdout.toString(), git(dir, args), args.join(' '));
    }
  } finally {
    rmrf(dir);
  }
});

test('one scanner across commits of different shapes keeps each commit its own', () => {
  const id = (c: string) => c.repeat(40);
  const ident = (t: number) => `A <a@example.com> ${t} +0000`;
  const commit = (parents: string[], time: number) => Buffer.from(
    `tree ${id('a')}\n${parents.map((p) => `parent ${p}\n`).join('')}author ${ident(1)}\ncommitter ${ident(time)}\n\nmessage\n`);
  const scan = new CommitScan();
  scan.scan(commit(['1', '2', '3', '4', '5'].map(id), 1700000000), () => 'octopus');
  assert.equal(scan.parentCount, 5);
  assert.equal(Buffer.from(scan.parents.subarray(80, 100)).toString('hex'), id('5'));
  assert.equal(scan.time, 1700000000);
  scan.scan(commit([], 42), () => 'root');
  assert.equal(scan.parentCount, 0);
  assert.equal(scan.time, 42);
  assert.equal(Buffer.from(scan.tree).toString('hex'), id('a'));
  assert.throws(() => scan.scan(Buffer.from(`tree ${id('a')}\nparent 1234\n\n`), () => 'commit X'), /commit X: bad parent line/);
});

test('a commit with a malformed parent line stops rev-list with its id, as git stops', () => {
  const dir = makeRepo(1);
  try {
    const tree = git(dir, ['rev-parse', 'HEAD^{tree}']).trim();
    const bad = git(dir, ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'],
      `tree ${tree}\nparent 1234\nauthor A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n\nbad\n`).trim();
    // git's update-ref parses the commit and refuses it: the ref is written by hand.
    fs.writeFileSync(path.join(dir, git(dir, ['rev-parse', '--git-dir']).trim(), 'refs/heads/bad'), `${bad}\n`);
    const r = tsgit(dir, ['rev-list', '--all']);
    assert.equal(r.status, 128);
    assert.match(r.stderr.toString(), new RegExp(`commit ${bad}: bad parent line`));
    assert.throws(() => git(dir, ['rev-list', '--all']));
  } finally {
    rmrf(dir);
  }
});
