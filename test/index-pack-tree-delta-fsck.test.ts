// index-pack --strict checks a tree stored as a delta without checking again the entries it copies
// whole from a base tree that was checked clean (object/fsck.ts checkTree with a layout). What
// must hold: an entry is passed by only when its bytes are one whole entry of the base. Hand-made
// packs put a bad name into a delta's result every other way (inserted, assembled from a copy
// that starts inside a base entry, a copy that stops inside one, a duplicate made of two whole
// copies), and git's index-pack --fsck-objects is the oracle for each verdict. A base that is not
// clean (a problem only warned about) lends nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { checkTree, TreeLayout } from '../src/object/fsck.js';
import { applyOps, deltaOf, objectId, writePack, type DeltaOp } from './pack-builder.js';
import { GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';

const id = (n: number): Buffer => Buffer.alloc(20, n);
const entry = (mode: string, name: string, n: number): Buffer => Buffer.concat([Buffer.from(`${mode} ${name}\0`), id(n)]);

/** Indexes a pack of `base` and the delta against it with both tools; returns their exit codes and stderr. */
function judge(base: Buffer, ops: DeltaOp[]): { tsgit: { status: number | null; stderr: string }; git: { status: number | null; stderr: string } } {
  const dir = tmpDir('tsgit-tree-delta-');
  try {
    // A third tree, a delta of the second, so that the second is a base in its turn (its own layout).
    const second = applyOps(base, ops);
    const last = entry('100644', 'z', 8);
    const { pack } = writePack(path.join(dir, 'in'), [
      { type: 2, data: base },
      { type: 6, base: 0, data: deltaOf(base.length, ops), oid: objectId(2, second) },
      { type: 6, base: 1, data: deltaOf(second.length, [{ copy: [0, second.length] }, { insert: last }]), oid: objectId(2, Buffer.concat([second, last])) },
    ]);
    const run = (cmd: string, args: string[]) => {
      const repo = path.join(dir, `${cmd}.git`);
      spawnSync('git', ['init', '-q', '--bare', repo], { env: GIT_ENV });
      const r = spawnSync(cmd, [...args, 'index-pack', '--stdin', '--fsck-objects'], { cwd: repo, env: GIT_ENV, input: fs.readFileSync(pack), encoding: 'utf8' });
      return { status: r.status, stderr: r.stderr };
    };
    return { tsgit: run(process.execPath, [TSGIT]), git: run('git', []) };
  } finally {
    rmrf(dir);
  }
}

// Sorted as git sorts: '.gitignore' < 'a.git' < 'b' < 'd/' < 'q...' < 'r'. E's name holds, after
// its first byte, the bytes of a whole entry named .git; F follows it, so that a search for the
// base entry at a misaligned offset lands on an entry.
const C = entry('100644', '.gitignore', 3), A = entry('100644', 'a.git', 1), B = entry('100644', 'b', 2), D = entry('40000', 'd', 4);
const E = entry('100644', 'q100644 .git', 6), F = entry('100644', 'r', 10);
const BASE = Buffer.concat([C, A, B, D, E, F]);
const at = (e: Buffer): number => BASE.indexOf(e);

const CASES: { name: string; ops: DeltaOp[]; refused: RegExp | null }[] = [
  {
    name: 'whole copies and a new entry: accepted',
    ops: [{ copy: [0, at(B) + B.length] }, { insert: entry('100644', 'bb', 5) }, { copy: [at(D), BASE.length - at(D)] }],
    refused: null,
  },
  {
    name: 'a .git entry inserted before whole copies',
    ops: [{ insert: entry('100644', '.git', 9) }, { copy: [0, BASE.length] }],
    refused: /hasDotgit/,
  },
  {
    name: 'a .git name made of an insert and a copy that starts inside a base entry',
    ops: [{ insert: Buffer.from('100644 ') }, { copy: [at(A) + 8, A.length - 8] }, { copy: [0, BASE.length] }],
    refused: /hasDotgit/,
  },
  {
    name: 'a .git name from a copy that starts at a base entry but stops inside it',
    ops: [{ copy: [at(C), 11] }, { insert: Buffer.concat([Buffer.from([0]), id(7)]) }, { copy: [0, BASE.length] }],
    refused: /hasDotgit/,
  },
  {
    name: 'a .git entry inside one copy that starts inside a base entry',
    ops: [{ copy: [at(E) + 8, E.length - 8] }, { copy: [0, BASE.length] }],
    refused: /hasDotgit/,
  },
  {
    name: 'a duplicate made of two whole copies of one entry',
    ops: [{ copy: [0, at(B) + B.length] }, { copy: [at(B), B.length] }, { copy: [at(D), BASE.length - at(D)] }],
    refused: /duplicateEntries/,
  },
  {
    name: 'entries copied whole, out of order',
    ops: [{ copy: [at(C), C.length] }, { copy: [at(B), B.length] }, { copy: [at(A), A.length] }, { copy: [at(D), BASE.length - at(D)] }],
    refused: /treeNotSorted/,
  },
];

for (const c of CASES) {
  test(`tree delta, ${c.name}: tsgit judges as git does`, () => {
    const { tsgit, git } = judge(BASE, c.ops);
    assert.equal(git.status === 0, c.refused === null, `git: ${git.stderr}`);
    if (c.refused === null) {
      assert.equal(tsgit.status, 0, tsgit.stderr);
    } else {
      assert.equal(tsgit.status, 128, tsgit.stderr);
      assert.match(tsgit.stderr, c.refused);
      assert.match(git.stderr, c.refused);
    }
  });
}

test('a base whose check found any problem, even one only warned about, lends no layout', () => {
  const layout = new TreeLayout();
  const problems = checkTree(BASE, { levels: { hasDotgit: 'warn' } }, undefined, layout);
  assert.equal(problems.length, 0, 'a.git is no problem');
  assert.ok(layout.clean);
  assert.equal(layout.count, 6);
  const bad = Buffer.concat([entry('100644', '.git', 1), B]);
  const warned = checkTree(bad, { levels: { hasDotgit: 'warn' } }, undefined, layout);
  assert.deepEqual(warned.map(p => [p.id, p.severity]), [['hasDotgit', 'warning']]);
  assert.equal(layout.clean, false);
  // Offered as a base anyway, it vouches for nothing: a whole copy of it is checked again.
  const runs = new Int32Array([0, bad.length, 0]);
  const again = checkTree(bad, { levels: { hasDotgit: 'warn' } }, undefined, new TreeLayout(), { layout, runs, runCount: 1 });
  assert.deepEqual(again.map(p => p.id), ['hasDotgit']);
  // A clean base does vouch: the same copy of a clean tree is not looked at entry by entry.
  const cleanLayout = new TreeLayout();
  checkTree(BASE, {}, undefined, cleanLayout);
  const copy = new TreeLayout();
  checkTree(BASE, {}, undefined, copy, { layout: cleanLayout, runs: new Int32Array([0, BASE.length, 0]), runCount: 1 });
  assert.deepEqual([...copy.copied.subarray(0, copy.count)], [1, 1, 1, 1, 1, 1]);
});
