// For every libgit2 fixture repository git itself can read, tsgit's plumbing prints exactly what
// git prints: rev-list --objects --all, cat-file --batch-check --batch-all-objects, show-ref --head
// -d, ls-tree -r HEAD. (Plain show-ref and rev-list --count are compared on other repositories, in
// refs.test.ts and the rev-list tests: a fresh process per command per fixture is this file's cost.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { copyFixture, fixtureNames, type Fixture } from './fixtures.js';
import { GIT_ENV, rmrf, tsgit } from './helpers.js';

const COMMANDS: string[][] = [
  ['rev-list', '--objects', '--all'],
  ['cat-file', '--batch-check', '--batch-all-objects'],
  ['show-ref', '--head', '-d'],
  ['ls-tree', '-r', 'HEAD'],
];

const names = fixtureNames();

describe('libgit2 fixtures: tsgit prints what git prints', { skip: names.length === 0 && 'libgit2-fixtures is not installed' }, () => {
  const copies: Fixture[] = [];
  after(() => { for (const c of copies) rmrf(c.root); });
  let compared = 0;
  for (const name of names) {
    test(name, () => {
      const fx = copyFixture(name);
      copies.push(fx);
      for (const args of COMMANDS) {
        const g = spawnSync('git', ['--git-dir', fx.gitDir, ...args], { env: GIT_ENV, maxBuffer: 1 << 28 });
        // Only what git itself can read counts: a fixture that git rejects is not an oracle.
        if (g.status !== 0 && args[0] !== 'show-ref') continue;
        const t = tsgit(fx.root, ['--git-dir', fx.gitDir, ...args]);
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
});
