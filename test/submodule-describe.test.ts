// The names `submodule status` puts after a commit are git describe's (annotated tags, any tag,
// --contains, --all --always): each of the four is compared with git describe's answer for every
// commit of a history with merges, annotated and lightweight tags, two annotated tags on one
// commit, a tag of a tag, a misnamed tag, remote-tracking refs and a commit on no branch.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fromHex } from '../src/core/oid.js';
import { Repository } from '../src/repository/repository.js';
import { describe, nameRev } from '../src/walk/describe.js';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';

let dir: string;
let time = 1700000000;

function at(seconds: number): NodeJS.ProcessEnv {
  time += seconds;
  return { ...GIT_ENV, GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
}

const commit = (msg: string) => git(dir, ['commit', '-q', '--allow-empty', '-m', msg], undefined, at(3600));
const tag = (...args: string[]) => git(dir, ['tag', ...args], undefined, { ...at(60), GIT_CONFIG_PARAMETERS: "'advice.nestedTag'='false'" });
const merge = (branch: string, msg: string) => git(dir, ['merge', '-q', '--no-ff', branch, '-m', msg], undefined, at(3600));

before(() => {
  dir = tmpDir('tsgit-describe-');
  git(dir, ['init', '-q', '-b', 'main', '.']);
  commit('a');
  commit('b');
  tag('-a', 'v0.1', '-m', 'v0.1');
  commit('c');
  git(dir, ['checkout', '-q', '-b', 'side', 'HEAD~1']);
  commit('s1');
  commit('s2');
  tag('lw-side');
  git(dir, ['checkout', '-q', 'main']);
  commit('d');
  merge('side', 'm1');
  commit('e');
  tag('-a', 'v1.0', '-m', 'v1.0');
  tag('-a', 'v1.0-again', '-m', 'again');
  commit('f');
  git(dir, ['checkout', '-q', 'side']);
  commit('s3');
  git(dir, ['checkout', '-q', 'main']);
  merge('side', 'm2');
  commit('g');
  tag('lw-g');
  commit('h');
  tag('-a', 'outer', '-m', 'outer', 'v1.0');
  tag('-a', 'tagtag', '-m', 'tagtag', 'outer');
  // A tag whose ref is not its name (git calls it misnamed).
  const misnamed = git(dir, ['mktag'], `object ${git(dir, ['rev-parse', 'HEAD~1']).trim()}\ntype commit\ntag other-name\ntagger T <t@example.com> ${time + 60} +0000\n\nx\n`).trim();
  git(dir, ['update-ref', 'refs/tags/renamed', misnamed]);
  git(dir, ['checkout', '-q', '--detach', 'HEAD~3']);
  commit('detached');
  git(dir, ['update-ref', 'refs/changes/1', 'HEAD']);
  git(dir, ['update-ref', 'refs/remotes/origin/side', 'side']);
  git(dir, ['checkout', '-q', 'main']);
});

after(() => rmrf(dir));

/** git describe's answer, or null when it fails. */
function gitDescribe(args: string[], oid: string): string | null {
  const r = spawnSync('git', ['describe', ...args, oid], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

test('describe, --tags, --contains and --all --always name every commit as git does', () => {
  const repo = new Repository(`${dir}/.git`, dir);
  try {
    const refs = repo.refs.list();
    const commits = git(dir, ['rev-list', '--all']).trim().split('\n');
    assert.ok(commits.length >= 14, `${commits.length} commits`);
    let contained = 0, described = 0;
    for (const oid of commits) {
      const id = fromHex(oid)!;
      const plain = gitDescribe([], oid);
      assert.equal(describe(repo.odb, refs, id, { abbrev: 7 }), plain, `describe ${oid}`);
      assert.equal(describe(repo.odb, refs, id, { tags: true, abbrev: 7 }), gitDescribe(['--tags'], oid), `describe --tags ${oid}`);
      const contains = gitDescribe(['--contains'], oid);
      assert.equal(nameRev(repo.odb, refs, id), contains, `describe --contains ${oid}`);
      assert.equal(describe(repo.odb, refs, id, { all: true, always: true, abbrev: 7 }), gitDescribe(['--all', '--always'], oid),
        `describe --all --always ${oid}`);
      if (contains !== null && /[~^]/.test(contains)) contained++;
      if (plain !== null && /-g[0-9a-f]{7}$/.test(plain)) described++;
    }
    // The history exercises the interesting cases, not only exact matches.
    assert.ok(contained >= 3 && described >= 3, `${contained} contained, ${described} described`);
  } finally {
    repo.close();
  }
});
