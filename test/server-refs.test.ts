// upload-pack's refs snapshot in a repository kept open between requests (as a worker keeps it): the same snapshot while
// nothing changed (so what was derived from it is reused), a new one as soon as a ref, HEAD or
// packed-refs changes, and never a kept one that left out a ref whose object was missing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, gitBuf, GIT_ENV, makeRepo, rmrf } from './helpers.js';
import { advertised, snapshotRefs } from '../src/server/refs.js';
import { uploadPack } from '../src/server/upload-pack.js';
import { WarmRepositories } from '../src/server/worker-repos.js';

let dir: string;

before(() => { dir = makeRepo(4, { bare: true }); });
after(() => rmrf(dir));

const names = (repos: WarmRepositories) => snapshotRefs(repos.get(dir)).refs.map(r => `${r.oid} ${r.name}`).join('\n');
const gitRefs = () => git(dir, ['for-each-ref', '--format=%(objectname) %(refname)']).trim();

test('a warm repository keeps its refs snapshot until a ref changes', () => {
  const repos = new WarmRepositories();
  try {
    const first = snapshotRefs(repos.get(dir));
    assert.equal(names(repos), gitRefs());
    assert.equal(snapshotRefs(repos.get(dir)), first, 'nothing changed: the same snapshot');

    git(dir, ['tag', '-a', '-m', 'v', 'v1', 'HEAD~1']);
    const tagged = snapshotRefs(repos.get(dir));
    assert.notEqual(tagged, first, 'a new loose tag is seen');
    assert.equal(names(repos), gitRefs());
    const v1 = tagged.refs.find(r => r.name === 'refs/tags/v1')!;
    assert.equal(v1.peeled, git(dir, ['rev-parse', 'HEAD~1']).trim());
    assert.ok(advertised(tagged).has(v1.peeled!));

    git(dir, ['pack-refs', '--all']);
    git(dir, ['update-ref', 'refs/heads/side', 'HEAD~2']);
    assert.equal(names(repos), gitRefs(), 'packed-refs and a new branch are seen');

    git(dir, ['symbolic-ref', 'HEAD', 'refs/heads/side']);
    assert.equal(snapshotRefs(repos.get(dir)).head!.oid, git(dir, ['rev-parse', 'main~2']).trim(), 'HEAD moved');
  } finally {
    repos.close();
  }
});

test('a snapshot that left out a ref to a missing object is not kept', () => {
  const repos = new WarmRepositories();
  try {
    const commit = git(dir, ['cat-file', 'commit', 'HEAD']).replace(/\n\n[^]*$/, '\n\nwritten later\n');
    const id = git(dir, ['hash-object', '-t', 'commit', '--stdin'], commit).trim();
    fs.writeFileSync(path.join(dir, 'refs', 'heads', 'late'), `${id}\n`);
    assert.equal(snapshotRefs(repos.get(dir)).refs.some(r => r.name === 'refs/heads/late'), false, 'git leaves it out');
    git(dir, ['hash-object', '-w', '-t', 'commit', '--stdin'], commit);
    assert.equal(snapshotRefs(repos.get(dir)).refs.some(r => r.name === 'refs/heads/late'), true, 'seen once its object is written');
  } finally {
    repos.close();
  }
});

/** A v0 advertisement from a warm repository, as `git upload-pack --advertise-refs` prints it. */
async function advertisement(repos: WarmRepositories, protocol?: string): Promise<string> {
  const out: Buffer[] = [];
  await uploadPack(repos.get(dir), { input: (async function* () {})(), output: b => { out.push(Buffer.from(b)); }, advertiseRefs: true, protocol });
  return Buffer.concat(out).toString('latin1');
}

test('a warm repository advertises what git advertises, before and after a ref changes, v0 and v1', async () => {
  const repos = new WarmRepositories();
  // The agents differ, and so does the length of the line that names them.
  const withoutAgent = (text: string) => text.replace(/[0-9a-f]{4}([^\n]*) agent=[^\n]*/, '$1');
  const gitAdvertisement = (protocol: string) =>
    withoutAgent(gitBuf(dir, ['upload-pack', '--advertise-refs', '.'], undefined, { ...GIT_ENV, GIT_PROTOCOL: protocol }).toString('latin1'));
  const ours = async (protocol: string) => withoutAgent(await advertisement(repos, protocol));
  try {
    for (let round = 0; round < 2; round++) {
      // The same snapshot answers twice; the variants (v1's version line) are kept apart.
      assert.equal(await ours(''), gitAdvertisement(''), `v0, round ${round}`);
      assert.equal(await ours('version=1'), gitAdvertisement('version=1'), `v1, round ${round}`);
    }
    git(dir, ['update-ref', 'refs/heads/advertised-later', 'HEAD~1']);
    assert.match(await ours(''), /refs\/heads\/advertised-later/);
    assert.equal(await ours(''), gitAdvertisement(''), 'after the new branch');
  } finally {
    repos.close();
  }
});
