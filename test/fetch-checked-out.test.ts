// fetch into a branch that a work tree has checked out: git refuses it before fetching anything
// (check_not_current_branch), in the main work tree and in linked ones, unless -u/--update-head-ok;
// a bare repository's HEAD checks nothing out. Each case is run by git and by tsgit on twin
// repositories, which must end alike: the same exit status and stderr, refs and object count.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, rmrf, tmpDir, tsgit } from './helpers.js';

describe('fetch into a checked-out branch', () => {
  let work: string;
  let src: string;
  before(() => {
    work = tmpDir();
    src = path.join(work, 'src');
    git(work, ['init', '-q', '-b', 'main', src]);
    git(src, ['commit', '-q', '--allow-empty', '-m', 'one']);
  });
  after(() => rmrf(work));

  /** A clone of src made before its next commit, with a linked work tree on `side`, for each tool. */
  const twins = (name: string, bare = false): { ours: string; theirs: string } => {
    const make = (tool: string): string => {
      const dir = path.join(work, `${name}-${tool}`);
      git(work, ['clone', '-q', ...(bare ? ['--bare'] : []), src, dir]);
      if (!bare) git(dir, ['worktree', 'add', '-q', '-b', 'side', `${dir}-linked`]);
      return dir;
    };
    const pair = { ours: make('tsgit'), theirs: make('git') };
    git(src, ['commit', '-q', '--allow-empty', '-m', `after ${name}`]);
    return pair;
  };

  // Objects by id (git unpacks a small fetch loose where tsgit keeps its pack).
  const state = (dir: string): string =>
    git(dir, ['for-each-ref', '--format=%(refname) %(objectname)']) + git(dir, ['cat-file', '--batch-all-objects', '--batch-check']);

  const compare = (name: string, args: string[], bare = false): { status: number; stderr: string } => {
    const { ours, theirs } = twins(name, bare);
    const r = tsgit(ours, ['fetch', ...args]);
    let status = 0, stderr = '';
    try {
      git(theirs, ['fetch', ...args]);
    } catch (e) {
      status = (e as { status: number }).status;
      stderr = String((e as { stderr: Buffer }).stderr);
    }
    assert.equal(r.status, status, r.stderr.toString());
    if (status !== 0) assert.equal(r.stderr.toString(), stderr.replaceAll(theirs, ours));
    assert.equal(state(ours), state(theirs));
    return { status, stderr };
  };

  it('refuses the main work tree\'s branch, fetching nothing', () => {
    const r = compare('main', ['origin', 'main:main']);
    assert.equal(r.status, 128);
    assert.match(r.stderr, /refusing to fetch into branch 'refs\/heads\/main' checked out at/);
  });

  it('refuses a linked work tree\'s branch', () => {
    const r = compare('linked', ['origin', '+main:refs/heads/side']);
    assert.equal(r.status, 128);
    assert.match(r.stderr, /'refs\/heads\/side' checked out at '.*-linked'/);
  });

  it('updates them with -u or --update-head-ok, and other branches without', () => {
    assert.equal(compare('u', ['-u', 'origin', 'main:main']).status, 0);
    assert.equal(compare('long', ['--update-head-ok', 'origin', 'main:main']).status, 0);
    assert.equal(compare('other', ['origin', 'main:refs/heads/other']).status, 0);
  });

  it('updates a bare repository\'s HEAD branch', () => {
    assert.equal(compare('bare', ['origin', 'main:main'], true).status, 0);
  });

  it('keeps -u as clone\'s --upload-pack', () => {
    const dest = path.join(work, 'cloned');
    const log = path.join(work, 'upload-pack-ran');
    const wrapper = path.join(work, 'upload-pack.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho ran > '${log}'\nexec git upload-pack "$@"\n`, { mode: 0o755 });
    const r = tsgit(work, ['clone', '-q', '-u', wrapper, src, dest]);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.ok(fs.existsSync(log));
    assert.equal(git(dest, ['rev-parse', 'HEAD']), git(src, ['rev-parse', 'HEAD']));
  });
});
