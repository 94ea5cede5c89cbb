// describe and name-rev on a history some thousands of commits wide: side branches forking from
// every commit of an old base line and merged one by one, so that walking down from the top
// queues the fork points newest first, each older than everything queued (a list kept sorted by
// insertion walked all of it every time: quadratic; at twice this width, describing the top took
// 2 to 3 s that way and 0.3 s with the heap). Answers are checked against git describe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fromHex } from '../src/core/oid.js';
import { Repository } from '../src/repository/repository.js';
import { describe, nameRev } from '../src/walk/describe.js';
import { FastImport } from './fast-import-history.js';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';

const WIDTH = 10000;
let dir: string;

before(() => {
  dir = tmpDir('tsgit-describe-wide-');
  git(dir, ['init', '-q', '-b', 'main', '.']);
  const fi = new FastImport(dir);
  // Commits that share a committer date leave git's list in the order they went in: runs of equal
  // dates (a hundred base commits each, a side commit and its merge) check that tie-break too.
  const commitAt = (date: number, ref: string, parents: number[], file: string, i: number) => {
    fi.time = date - 60;
    return fi.commit(ref, parents, [[file, `${i}\n`]]);
  };
  const t0 = 1700000000;
  const base: number[] = [];
  for (let i = 0; i < WIDTH; i++) base.push(commitAt(t0 + Math.floor(i / 100), 'refs/heads/base', i ? [base[i - 1]!] : [], 'base.txt', i));
  let main = 0;
  for (let i = 0; i < WIDTH; i++) {
    const date = t0 + 1000 + i;
    const side = commitAt(date, 'refs/heads/side', [base[i]!], 'side.txt', i);
    main = commitAt(date, 'refs/heads/main', main ? [main, side] : [side], 'main.txt', i);
  }
  fi.flush();
  git(dir, ['tag', '-a', '-m', 'first', 'v0', `base~${WIDTH - 1}`]);
  git(dir, ['tag', '-a', '-m', 'middle', 'v1', `base~${WIDTH >> 1}`]);
  // More lightweight tags than describe's ten candidates, so --tags gives up and finishes counting.
  for (let k = 1; k <= 12; k++) git(dir, ['tag', `lw${k}`, `main~${k * 97}^2`]);
});

after(() => rmrf(dir));

function gitDescribe(args: string[], rev: string): string | null {
  const r = spawnSync('git', ['describe', '--abbrev=8', ...args, rev], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

test('describe, --tags, --contains and --all on a history thousands of commits wide answer as git does', () => {
  const repo = new Repository(`${dir}/.git`, dir);
  try {
    const refs = repo.refs.list();
    // From the top the whole width is queued; further down less of it, and --tags meets its
    // candidates at other depths.
    for (const rev of ['main', 'main~1', `main~${WIDTH >> 1}`, 'main~5^2', `base~${WIDTH >> 2}`]) {
      const id = fromHex(git(dir, ['rev-parse', rev]).trim())!;
      assert.equal(describe(repo.odb, refs, id, { abbrev: 8 }), gitDescribe([], rev), `describe ${rev}`);
      assert.equal(describe(repo.odb, refs, id, { tags: true, abbrev: 8 }), gitDescribe(['--tags'], rev), `describe --tags ${rev}`);
      assert.equal(nameRev(repo.odb, refs, id), gitDescribe(['--contains'], rev), `describe --contains ${rev}`);
      assert.equal(describe(repo.odb, refs, id, { all: true, always: true, abbrev: 8 }), gitDescribe(['--all', '--always'], rev),
        `describe --all --always ${rev}`);
    }
  } finally {
    repo.close();
  }
});
