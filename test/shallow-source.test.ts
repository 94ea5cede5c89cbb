// Cloning and fetching from a repository that is itself shallow (a shallow clone served again, as
// CI caches and mirrors do). git's upload-pack treats its own boundary as parentless, advertises
// it in v0 and sends it as shallow-info in v2, and its clients take it as their boundary. Checked
// both ways: git clients against tsgit upload-pack, and tsgit's client against git-upload-pack,
// each against what git does with git.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, makeRepo, rmrf, tmpDir, tsgit, TSGIT } from './helpers.js';

const SERVERS = [
  { name: 'git-upload-pack', uploadPack: 'git-upload-pack' },
  { name: 'tsgit upload-pack', uploadPack: `${process.execPath} ${TSGIT} upload-pack` },
];

describe('a shallow repository as the source', () => {
  let root = '', source = '', full = '';
  // The boundary as a set: git's own v2 clone of a shallow repository writes its line twice.
  const shallowOf = (gitDir: string): string => {
    const file = path.join(gitDir, 'shallow');
    return fs.existsSync(file) ? [...new Set(fs.readFileSync(file, 'latin1').split('\n').filter(Boolean))].sort().join('\n') : '';
  };
  const history = (dir: string): string => git(dir, ['rev-list', '--all', '--parents']);

  before(() => {
    root = tmpDir('tsgit-shallow-source-');
    full = makeRepo(12, { at: path.join(root, 'full') });
    // A side branch merged back, so that the boundary is not a single line.
    git(full, ['checkout', '-q', '-b', 'side', 'main~2']);
    fs.writeFileSync(path.join(full, 'side.txt'), 'side\n');
    git(full, ['add', 'side.txt']);
    git(full, ['commit', '-q', '-m', 'side']);
    git(full, ['checkout', '-q', 'main']);
    git(full, ['merge', '-q', '--no-ff', '-m', 'merge side', 'side']);
    source = path.join(root, 'source.git');
    git(root, ['clone', '-q', '--bare', '--no-local', '--depth', '4', '--no-single-branch', `file://${full}`, source]);
    assert.notEqual(shallowOf(source), '', 'the source is shallow');
  });
  after(() => rmrf(root));

  for (const version of ['0', '2']) {
    test(`git clone over protocol v${version}: tsgit upload-pack gives what git-upload-pack gives`, () => {
      const results = SERVERS.map(({ name, uploadPack }) => {
        const dir = path.join(root, `git-v${version}-${name.replace(/ /g, '-')}`);
        git(root, ['-c', `protocol.version=${version}`, 'clone', '-q', '--bare', `--upload-pack=${uploadPack}`, `file://${source}`, dir]);
        git(dir, ['fsck', '--full', '--no-dangling']);
        return { shallow: shallowOf(dir), history: history(dir) };
      });
      assert.notEqual(results[0]!.shallow, '');
      assert.deepEqual(results[1], results[0]);
    });

    test(`git clone --depth 2 and fetch --unshallow over protocol v${version} stop where git stops`, () => {
      const results = SERVERS.map(({ name, uploadPack }) => {
        const dir = path.join(root, `git-deep-v${version}-${name.replace(/ /g, '-')}`);
        git(root, ['-c', `protocol.version=${version}`, 'clone', '-q', '--bare', '--depth', '2', '--no-single-branch',
          `--upload-pack=${uploadPack}`, `file://${source}`, dir]);
        const shallow = shallowOf(dir);
        git(dir, ['-c', `protocol.version=${version}`, 'fetch', '-q', '--unshallow', `--upload-pack=${uploadPack}`, 'origin']);
        git(dir, ['fsck', '--full', '--no-dangling']);
        return { shallow, unshallowed: shallowOf(dir), history: history(dir) };
      });
      assert.notEqual(results[0]!.shallow, results[0]!.unshallowed, 'the unshallow deepened the clone');
      assert.equal(results[0]!.unshallowed, shallowOf(source), 'git stops at the source boundary');
      assert.deepEqual(results[1], results[0]);
    });

    test(`tsgit clone over protocol v${version} is shallow where git's clone is`, () => {
      const oracle = path.join(root, `oracle-v${version}`);
      git(root, ['-c', `protocol.version=${version}`, 'clone', '-q', `file://${source}`, oracle]);
      for (const { name, uploadPack } of SERVERS) {
        const dir = path.join(root, `tsgit-v${version}-${name.replace(/ /g, '-')}`);
        const r = tsgit(root, ['-c', `protocol.version=${version}`, 'clone', '-q', `--upload-pack=${uploadPack}`, `file://${source}`, dir]);
        assert.equal(r.status, 0, `${name}: ${r.stderr}`);
        assert.equal(shallowOf(path.join(dir, '.git')), shallowOf(path.join(oracle, '.git')), name);
        assert.equal(history(dir), history(oracle), name);
        git(dir, ['fsck', '--full', '--no-dangling']);
        assert.equal(git(dir, ['status', '--porcelain']), '', name);
      }
    });
  }

  test('tsgit fetch from a shallow source that moved on takes the new commits and keeps the boundary', () => {
    const work = path.join(root, 'fetch-work');
    git(root, ['clone', '-q', `file://${source}`, work]);
    const before = path.join(root, 'fetch-tsgit');
    const r = tsgit(root, ['clone', '-q', `file://${source}`, before]);
    assert.equal(r.status, 0, r.stderr.toString());
    fs.writeFileSync(path.join(work, 'new.txt'), 'new\n');
    git(work, ['add', 'new.txt']);
    git(work, ['commit', '-q', '-m', 'new']);
    git(work, ['push', '-q', 'origin', 'main']);
    const oracle = path.join(root, 'fetch-git');
    git(root, ['clone', '-q', `file://${source}`, oracle]);
    for (const { name, uploadPack } of SERVERS) {
      const f = tsgit(before, ['fetch', '-q', `--upload-pack=${uploadPack}`, 'origin']);
      assert.equal(f.status, 0, `${name}: ${f.stderr}`);
      assert.equal(git(before, ['rev-parse', 'origin/main']), git(oracle, ['rev-parse', 'origin/main']), name);
      assert.equal(shallowOf(path.join(before, '.git')), shallowOf(path.join(oracle, '.git')), name);
      git(before, ['fsck', '--full', '--no-dangling']);
    }
  });

  test('a complete repository fetching from a shallow mirror stays complete, as with git (after the mirror moved on, so there is something to fetch)', () => {
    for (const [name, run] of [['git', git], ['tsgit', (cwd: string, args: string[]) => {
      const r = tsgit(cwd, args);
      assert.equal(r.status, 0, r.stderr.toString());
      return r.stdout.toString();
    }]] as const) {
      const whole = path.join(root, `whole-${name}`);
      git(root, ['clone', '-q', '--no-local', full, whole]);
      git(whole, ['remote', 'add', 'mirror', `file://${source}`]);
      run(whole, ['fetch', '-q', 'mirror']);
      assert.equal(shallowOf(path.join(whole, '.git')), '', `${name}: no boundary was taken`);
      assert.equal(git(whole, ['rev-parse', 'mirror/main']), git(source, ['rev-parse', 'main']), name);
      git(whole, ['fsck', '--full', '--no-dangling']);
    }
  });

});
