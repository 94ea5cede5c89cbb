// For every libgit2 fixture repository git itself can read, tsgit's plumbing prints exactly what
// git prints: rev-list --objects --all, cat-file --batch-check --batch-all-objects, show-ref --head
// -d, ls-tree -r HEAD. (Plain show-ref and rev-list --count are compared on other repositories, in
// refs.test.ts and the rev-list tests.) tsgit's command lines run through the CLI in one process
// (cli-batch.ts): a process per command per fixture was this file's whole cost. A few fixtures'
// command lines are also run by a spawned bin/tsgit, which must print the same.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { sameAsSpawned, tsgitBatch, type BatchCommand, type BatchResult } from './cli-batch.js';
import { copyFixture, fixtureNames, type Fixture } from './fixtures.js';
import { GIT_ENV, rmrf } from './helpers.js';

const COMMANDS: string[][] = [
  ['rev-list', '--objects', '--all'],
  ['cat-file', '--batch-check', '--batch-all-objects'],
  ['show-ref', '--head', '-d'],
  ['ls-tree', '-r', 'HEAD'],
];

/** Fixtures whose command lines a spawned bin/tsgit runs as well. */
const SPAWNED = ['testrepo.git', 'nasty', 'bad_tag.git'];

const names = fixtureNames();

interface Comparison { args: string[]; git: SpawnSyncReturns<Buffer>; tsgit: BatchResult }

describe('libgit2 fixtures: tsgit prints what git prints', { skip: names.length === 0 && 'libgit2-fixtures is not installed' }, () => {
  const copies: Fixture[] = [];
  const comparisons = new Map<string, Comparison[]>();
  const batch: BatchCommand[] = [];
  let results: BatchResult[] = [];
  before(() => {
    const pending: { name: string; args: string[]; git: SpawnSyncReturns<Buffer> }[] = [];
    for (const name of names) {
      const fx = copyFixture(name);
      copies.push(fx);
      for (const args of COMMANDS) {
        const g = spawnSync('git', ['--git-dir', fx.gitDir, ...args], { env: GIT_ENV, maxBuffer: 1 << 28 });
        // Only what git itself can read counts: a fixture that git rejects is not an oracle.
        if (g.status !== 0 && args[0] !== 'show-ref') continue;
        pending.push({ name, args, git: g });
        batch.push({ cwd: fx.root, args: ['--git-dir', fx.gitDir, ...args] });
      }
    }
    results = tsgitBatch(batch);
    pending.forEach((p, i) => {
      const list = comparisons.get(p.name) ?? [];
      list.push({ args: p.args, git: p.git, tsgit: results[i]! });
      comparisons.set(p.name, list);
    });
  });
  after(() => { for (const c of copies) rmrf(c.root); });
  let compared = 0;
  for (const name of names) {
    test(name, () => {
      for (const { args, git: g, tsgit: t } of comparisons.get(name) ?? []) {
        assert.equal(t.stderr.toString().includes('at '), false, `${name}: tsgit ${args.join(' ')} crashed:\n${t.stderr}`);
        assert.equal(t.status, g.status, `${name}: tsgit ${args.join(' ')} exit ${t.status}, git ${g.status}\n${t.stderr}`);
        assert.equal(t.stdout.toString('latin1'), g.stdout.toString('latin1'), `${name}: tsgit ${args.join(' ')} differs from git`);
        compared++;
      }
    });
  }
  test('compared a meaningful number of outputs', () => {
    assert.ok(compared > names.length * 2, `only ${compared} comparisons across ${names.length} fixtures`);
  });
  test('a spawned bin/tsgit prints what the batch printed', () => {
    const picked = batch.map((c, i) => ({ c, r: results[i]! }))
      .filter(({ c }) => SPAWNED.some((n) => c.args[1]!.includes(`/${n}/`) || c.args[1]!.endsWith(`/${n}`)));
    assert.ok(picked.length >= 8, `only ${picked.length} command lines of ${SPAWNED.join(', ')}`);
    sameAsSpawned(picked.map((p) => p.c), picked.map((p) => p.r));
  });
});
