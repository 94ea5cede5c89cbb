// rev-list --objects with trees read on a worker thread (TSGIT_TREE_WORKER=on) prints exactly what
// git prints, and fails as the single-threaded walk does on a missing tree. Runs are bounded in
// time: a walk waiting on a worker that waits on it would otherwise hang the suite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureCorpus } from '../bench/corpus.js';
import { sameAsSpawned, tsgitBatch, type BatchCommand } from './cli-batch.js';
import { copyFixture, fixtureNames, type Fixture } from './fixtures.js';
import { GIT_ENV, git, gitBuf, rmrf, tmpDir, tsgitWithin as tsgit } from './helpers.js';

const ON = { ...GIT_ENV, TSGIT_TREE_WORKER: 'on' };
const OFF = { ...GIT_ENV, TSGIT_TREE_WORKER: 'off' };

/** Each of `argsList` run by tsgit with the worker prints what git prints (tsgit's runs in one process, cli-batch.ts). */
function same(gitDir: string, ...argsList: string[][]): void {
  const results = tsgitBatch(argsList.map((args) => ({ cwd: gitDir, args })), ON, 60_000);
  argsList.forEach((args, i) => {
    const expected = gitBuf(gitDir, args);
    const got = results[i]!;
    assert.equal(got.status, 0, got.stderr.toString());
    assert.ok(got.stdout.equals(expected), `tsgit ${args.join(' ')} differs from git:\n${got.stdout.toString().slice(0, 400)}\nvs\n${expected.toString().slice(0, 400)}`);
  });
}

describe('rev-list --objects with the tree worker', () => {
  let gitDir = '';
  before(async () => { gitDir = (await ensureCorpus('small')).gitDir; });

  test('small corpus: all refs, limits, tip trees and blobs', () => {
    const tree = git(gitDir, ['rev-parse', 'HEAD~7^{tree}']).trim();
    const blob = git(gitDir, ['rev-parse', `HEAD:${git(gitDir, ['ls-tree', '--name-only', 'HEAD']).split('\n')[0]}`]).trim();
    same(gitDir,
      ['rev-list', '--objects', '--all'],
      ['rev-list', '--objects', '-n', '7', '--all'],
      ['rev-list', '--objects', '--count', '--all'],
      ['rev-list', '--objects', 'HEAD~3', tree, blob],
      ['rev-list', '--objects', '--no-object-names', 'HEAD']);
  });

  test('a missing tree fails as without the worker', () => {
    const dir = tmpDir();
    try {
      git(dir, ['init', '-q', '-b', 'main']);
      fs.mkdirSync(path.join(dir, 'd'));
      fs.writeFileSync(path.join(dir, 'd/f'), 'x\n');
      git(dir, ['add', '.']);
      git(dir, ['commit', '-q', '-m', 'one']);
      const sub = git(dir, ['rev-parse', 'HEAD:d']).trim();
      fs.rmSync(path.join(dir, '.git/objects', sub.slice(0, 2), sub.slice(2)));
      const on = tsgit(dir, ['rev-list', '--objects', '--all'], ON);
      const off = tsgit(dir, ['rev-list', '--objects', '--all'], OFF);
      assert.notEqual(off.status, 0);
      assert.match(off.stderr.toString(), new RegExp(`missing tree ${sub}`));
      assert.equal(on.status, off.status);
      assert.equal(on.stderr.toString(), off.stderr.toString());
    } finally {
      rmrf(dir);
    }
  });

  test('shared subtrees, and tags of trees listed before any commit', () => {
    const dir = tmpDir();
    try {
      git(dir, ['init', '-q', '-b', 'main']);
      // a/ and b/ are the same tree, and so are a/s/ and c/s/: the worker has nothing to send for
      // the second of each, and the walk must hear so without waiting for more roots.
      for (const f of ['a/f', 'b/f', 'a/s/g', 'c/s/g', 'c/h']) {
        fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        fs.writeFileSync(path.join(dir, f), `${path.basename(f)}\n`);
      }
      git(dir, ['add', '.']);
      git(dir, ['commit', '-q', '-m', 'one']);
      git(dir, ['tag', 'root-tree', 'HEAD^{tree}']);
      git(dir, ['tag', '-a', '-m', 'tree', 'annotated-tree', 'HEAD^{tree}']);
      git(dir, ['tag', 'sub-tree', 'HEAD:c']);
      git(dir, ['tag', 'a-blob', 'HEAD:c/h']);
      fs.writeFileSync(path.join(dir, 'c/h'), 'changed\n');
      git(dir, ['commit', '-q', '-am', 'two']);
      same(dir,
        ['rev-list', '--objects', '--all'],
        ['rev-list', '--objects', 'root-tree', 'annotated-tree'],
        ['rev-list', '--objects', 'sub-tree', 'HEAD', 'root-tree'],
        ['rev-list', '--objects', '-n', '1', '--all']);
    } finally {
      rmrf(dir);
    }
  });

  test('hundreds of commits whose root trees were all seen before, the worker idle meanwhile', () => {
    const dir = tmpDir();
    try {
      git(dir, ['init', '-q', '--bare']);
      // Two root trees in turn over 600 commits, both with the subtree s/: past the first two, no
      // root brings the worker a tree.
      const lines: string[] = [];
      for (let i = 1; i <= 600; i++) {
        lines.push('commit refs/heads/main', `mark :${i}`, `committer C <c@example.com> ${1700000000 + i} +0000`, 'data 2', `${i % 10}`);
        if (i > 1) lines.push(`from :${i - 1}`);
        else lines.push('M 100644 inline s/g', 'data 2', 'g');
        const body = `${i % 2}\n`;
        lines.push('M 100644 inline d/e/f', `data ${body.length}`, body);
      }
      git(dir, ['fast-import', '--quiet'], lines.join('\n') + '\n');
      same(dir, ['rev-list', '--objects', '--all'], ['rev-list', '--objects', '-n', '300', 'main']);
      // In-process, so the walk can pause once the worker has been sent 257 roots (the walk lists
      // the first while it walks commits past the 256th): the worker finishes them and waits for
      // more, and the walk then lists the second root, whose s/ is no news, holding the 258th.
      const src = (p: string) => JSON.stringify(new URL(`../src/${p}`, import.meta.url).href);
      const script = `
        import { ObjectDatabase } from ${src('odb/database.js')};
        import { ObjectWalk } from ${src('walk/object-walk.js')};
        import { TreeReadAhead } from ${src('walk/tree-read-ahead.js')};
        const odb = new ObjectDatabase(process.argv[1]);
        const walk = new ObjectWalk(odb);
        walk.add(Buffer.from(process.argv[2], 'hex'), 'main');
        const commits = [], objects = [];
        const hex = (ids, off) => Buffer.from(ids.subarray(off, off + 20)).toString('hex');
        walk.enumerate({
          commit(ids, off) {
            commits.push(hex(ids, off));
            if (commits.length === 258) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
          },
          object(_type, ids, off, path, len) { objects.push(hex(ids, off) + ' ' + Buffer.from(path.subarray(0, len)).toString()); },
        }, -1, new TreeReadAhead(odb));
        process.stdout.write([...commits, ...objects].join('\\n') + '\\n');
      `;
      const head = git(dir, ['rev-parse', 'main']).trim();
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, path.join(dir, 'objects'), head], { env: GIT_ENV, maxBuffer: 1 << 28, timeout: 60_000 });
      assert.equal(r.signal, null, 'the walk did not finish');
      assert.equal(r.status, 0, r.stderr.toString());
      assert.equal(r.stdout.toString(), git(dir, ['rev-list', '--objects', 'main']));
    } finally {
      rmrf(dir);
    }
  });
});

describe('rev-list --objects with the tree worker on libgit2\'s fixtures', { skip: fixtureNames().length === 0 && 'libgit2-fixtures is not installed' }, () => {
  const copies: Fixture[] = [];
  after(() => { for (const c of copies) rmrf(c.root); });
  test('every fixture git can walk', () => {
    // tsgit's walks run in one process through the CLI (cli-batch.ts), bounded in time as a whole;
    // a few are also run by a spawned bin/tsgit, which must print the same.
    const batch: BatchCommand[] = [];
    const expected: { name: string; stdout: Buffer }[] = [];
    for (const name of fixtureNames()) {
      const fx = copyFixture(name);
      copies.push(fx);
      const args = ['--git-dir', fx.gitDir, 'rev-list', '--objects', '--all'];
      const g = spawnSync('git', args, { env: GIT_ENV, maxBuffer: 1 << 28 });
      if (g.status !== 0) continue; // only what git itself can read is an oracle
      batch.push({ cwd: fx.root, args });
      expected.push({ name, stdout: g.stdout });
    }
    const results = tsgitBatch(batch, ON, 120_000);
    let compared = 0;
    expected.forEach(({ name, stdout }, i) => {
      const t = results[i]!;
      assert.equal(t.status, 0, `${name}: ${t.stderr}`);
      assert.equal(t.stdout.toString('latin1'), stdout.toString('latin1'), `${name}: differs from git`);
      compared++;
    });
    assert.ok(compared > 20, `only ${compared} fixtures compared`);
    const spawned = [0, Math.floor(batch.length / 2), batch.length - 1];
    sameAsSpawned(spawned.map((k) => batch[k]!), spawned.map((k) => results[k]!), ON);
  });
});
