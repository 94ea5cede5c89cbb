// rev-list --objects over a whole repository with the commits walked on a worker thread
// (TSGIT_COMMIT_WORKER=on): it prints exactly what git prints, and a commit the worker cannot read
// or parse fails the walk with the error the single-threaded walk gives. Runs are bounded in time:
// a walk waiting on a worker that died would otherwise hang the suite.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureCorpus } from '../bench/corpus.js';
import { toHex } from '../src/core/oid.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { CommitReadAhead } from '../src/walk/commit-read-ahead.js';
import { ObjectWalk } from '../src/walk/object-walk.js';
import { GIT_ENV, git, gitBuf, makeRepo, rmrf, tmpDir, tsgitWithin as tsgit } from './helpers.js';

const ON = { ...GIT_ENV, TSGIT_COMMIT_WORKER: 'on' };
const OFF = { ...GIT_ENV, TSGIT_COMMIT_WORKER: 'off' };

function sameAsGit(dir: string, args: string[]): void {
  const r = tsgit(dir, args, ON);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.ok(r.stdout.equals(gitBuf(dir, args)), `tsgit ${args.join(' ')} differs from git`);
}

describe('rev-list --objects with the commit worker', () => {
  let corpus = '';
  before(async () => { corpus = (await ensureCorpus('small')).gitDir; });

  test('small corpus (merges, tags, branches): what git prints', () => {
    for (const args of [['rev-list', '--objects', '--all'], ['rev-list', '--objects', '--no-object-names', '--all'], ['rev-list', '--objects', '--count', '--all']]) {
      sameAsGit(corpus, args);
    }
  });

  test('the walk takes its commits from the worker, commits in git\'s order and objects in git\'s order', () => {
    const odb = new ObjectDatabase(path.join(corpus, 'objects'));
    try {
      const walk = new ObjectWalk(odb);
      const refs = git(corpus, ['for-each-ref', '--format=%(objectname) %(refname)']).trim().split('\n');
      for (const line of refs) walk.add(Buffer.from(line.slice(0, 40), 'hex'), line.slice(41));
      walk.add(Buffer.from(git(corpus, ['rev-parse', 'HEAD']).trim(), 'hex'), 'HEAD');
      walk.wholeRepository(true);
      let started = 0, commitsDone = false;
      const commits: string[] = [], objects: string[] = [];
      walk.enumerate({
        commit: (ids, off) => { assert.ok(!commitsDone); commits.push(toHex(ids, off)); },
        commitsDone: () => { commitsDone = true; },
        object: (_type, ids, off, p, n) => objects.push(`${toHex(ids, off)} ${Buffer.from(p.subarray(0, n)).toString()}`),
      }, -1, undefined, (starts, shallow) => {
        started++;
        return new CommitReadAhead(odb, starts, shallow);
      });
      assert.equal(started, 1);
      assert.ok(commitsDone);
      const expected = git(corpus, ['rev-list', '--objects', '--all']).trimEnd().split('\n');
      assert.deepEqual(commits, expected.slice(0, commits.length));
      assert.equal(commits.length + objects.length, expected.length);
      assert.deepEqual(objects.map((o) => o.trimEnd()), expected.slice(commits.length).map((o) => o.trimEnd()));
    } finally {
      odb.close();
    }
  });

  describe('a history the worker cannot walk', () => {
    let dir = '';
    before(() => { dir = makeRepo(3); });
    after(() => rmrf(dir));

    const refsDir = () => path.join(dir, git(dir, ['rev-parse', '--git-dir']).trim(), 'refs/heads');

    test('a commit with a malformed parent line, below a good one: the error of the walk without the worker', () => {
      const tree = git(dir, ['rev-parse', 'HEAD^{tree}']).trim();
      const ident = 'A <a@example.com> 1700000000 +0000';
      const bad = git(dir, ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'],
        `tree ${tree}\nparent 1234\nauthor ${ident}\ncommitter ${ident}\n\nbad\n`).trim();
      const top = git(dir, ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'],
        `tree ${tree}\nparent ${bad}\nauthor ${ident}\ncommitter ${ident}\n\ntop\n`).trim();
      // git's update-ref would read the commits and refuse them: the ref is written by hand.
      fs.writeFileSync(path.join(refsDir(), 'bad'), `${top}\n`);
      try {
        const on = tsgit(dir, ['rev-list', '--objects', '--all'], ON);
        const off = tsgit(dir, ['rev-list', '--objects', '--all'], OFF);
        assert.equal(off.status, 128);
        assert.match(off.stderr.toString(), new RegExp(`commit ${bad}: bad parent line`));
        assert.equal(on.status, off.status);
        assert.equal(on.stderr.toString(), off.stderr.toString());
      } finally {
        fs.rmSync(path.join(refsDir(), 'bad'));
      }
    });

    test('a missing parent: the error of the walk without the worker', () => {
      const parent = git(dir, ['rev-parse', 'HEAD~1']).trim();
      const objects = path.join(dir, '.git/objects');
      const file = path.join(objects, parent.slice(0, 2), parent.slice(2));
      const saved = fs.readFileSync(file);
      fs.rmSync(file);
      try {
        const on = tsgit(dir, ['rev-list', '--objects', '--all'], ON);
        const off = tsgit(dir, ['rev-list', '--objects', '--all'], OFF);
        assert.notEqual(off.status, 0);
        assert.match(off.stderr.toString(), new RegExp(parent));
        assert.equal(on.status, off.status);
        assert.equal(on.stderr.toString(), off.stderr.toString());
      } finally {
        fs.writeFileSync(file, saved);
      }
    });
  });

  test('a shallow clone: the worker stops at the boundary as the walk does', () => {
    const base = tmpDir();
    try {
      const src = path.join(base, 'src');
      const shallow = path.join(base, 'shallow');
      fs.renameSync(makeRepo(6), src);
      git(base, ['clone', '-q', '--depth', '2', `file://${src}`, shallow]);
      sameAsGit(shallow, ['rev-list', '--objects', '--all']);
    } finally {
      rmrf(base);
    }
  });
});
