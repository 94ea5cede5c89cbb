// A serve worker's rehearsal (server/rehearse.ts): the fetch it answers itself before any client,
// checked against git-core: its answer is a pack git indexes, holding exactly the objects git's
// rev-list --use-bitmap-index finds from HEAD~depth to HEAD (as its upload-pack would send); repositories without that much history are left alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, makeRepo, rmrf, tmpDir } from './helpers.js';
import { rehearse } from '../src/server/rehearse.js';
import { snapshotRefs } from '../src/server/refs.js';
import { Repository } from '../src/repository/repository.js';

let work: string;
let served: string;

before(() => {
  work = tmpDir('tsgit-rehearse-');
  served = makeRepo(12, { bare: true });
  git(served, ['repack', '-adbq']);
});

after(() => {
  rmrf(work);
  rmrf(served);
});

/** The pack of a v2 fetch response: band-1 payloads of the pkt-lines after "packfile". */
function packOf(response: Buffer): Buffer {
  const parts: Buffer[] = [];
  let inPack = false;
  for (let p = 0; p < response.length;) {
    const len = parseInt(response.toString('latin1', p, p + 4), 16);
    if (len < 4) { p += 4; continue; }
    const body = response.subarray(p + 4, p + len);
    if (inPack && body[0] === 1) parts.push(body.subarray(1));
    if (body.toString('latin1') === 'packfile\n') inPack = true;
    p += len;
  }
  return Buffer.concat(parts);
}

test('the rehearsal answers a fetch of HEAD from HEAD~depth with the objects git sends for it', async () => {
  const repo = new Repository(served, null);
  try {
    const chunks: Buffer[] = [];
    assert.equal(await rehearse(repo, snapshotRefs(repo), 4, b => { chunks.push(Buffer.from(b)); }), true);
    const pack = path.join(work, 'rehearsal.pack');
    fs.writeFileSync(pack, packOf(Buffer.concat(chunks)));
    git(work, ['init', '-q', '--bare', 'check.git']);
    const check = path.join(work, 'check.git');
    fs.writeFileSync(path.join(check, 'objects', 'info', 'alternates'), path.join(served, 'objects') + '\n');
    const bytes = fs.readFileSync(pack);
    const expected = git(served, ['rev-list', '--objects', '--use-bitmap-index', 'main~4..main']).trim().split('\n').map(l => l.split(' ')[0]!);
    assert.equal(bytes.readUInt32BE(8), expected.length, 'objects in the pack');
    git(check, ['index-pack', '--stdin', '--fix-thin'], bytes);
    // Without the served repository behind it, the checking one has what was sent (and its bases).
    fs.rmSync(path.join(check, 'objects', 'info', 'alternates'));
    const found = git(check, ['cat-file', '--batch-check=%(objectname)'], expected.join('\n') + '\n');
    assert.deepEqual(found.trim().split('\n'), expected);
  } finally {
    repo.close();
  }
});

test('a repository with less history than the rehearsal depth, or an unborn HEAD, is not rehearsed', async () => {
  const repo = new Repository(served, null);
  const empty = path.join(work, 'empty.git');
  git(work, ['init', '-q', '--bare', 'empty.git']);
  const unborn = new Repository(empty, null);
  try {
    let wrote = 0;
    assert.equal(await rehearse(repo, snapshotRefs(repo), 12, () => { wrote++; }), false);
    assert.equal(await rehearse(unborn, snapshotRefs(unborn), 1, () => { wrote++; }), false);
    assert.equal(wrote, 0);
  } finally {
    repo.close();
    unborn.close();
  }
});
