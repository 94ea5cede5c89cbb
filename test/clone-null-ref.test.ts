// A server that advertises a ref with the zero id (git-core does for a broken ref file; git 2.39
// does, newer ones leave the ref out). git's own clone of it fails; tsgit's fails too, before asking
// for an object no one has, with one fatal line that names the ref, and leaves no directory behind.
// The first test feeds tsgit such an advertisement by hand, so it checks tsgit whatever git does;
// the second compares with git where git still advertises the broken ref.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { git, GIT_ENV, makeRepo, pkt, rmrf, tmpDir, tsgit, TSGIT } from './helpers.js';
import { clientEnv, runAsync, startRawServer } from './transport-servers.js';

const ZERO = '0'.repeat(40);

let root = '', served = '';
before(() => {
  root = tmpDir('tsgit-null-ref-');
  served = path.join(root, 'served.git');
  const work = makeRepo(2, { at: path.join(root, 'work') });
  git(root, ['clone', '-q', '--bare', work, served]);
  fs.writeFileSync(path.join(served, 'refs', 'heads', 'broken'), 'dummy\n');
});
after(() => rmrf(root));

test('a hand-made v0 advertisement with a zero-id ref: tsgit clone fails naming the ref, and asks for nothing', async () => {
  const tip = git(served, ['rev-parse', 'main']).trim();
  let asked = false;
  const server = await startRawServer((socket) => {
    socket.write(pkt(`${tip} HEAD\0multi_ack_detailed side-band-64k ofs-delta symref=HEAD:refs/heads/main agent=fake\n`)
      + pkt(`${tip} refs/heads/main\n`) + pkt(`${ZERO} refs/heads/broken\n`) + '0000');
    // A client that goes on to negotiate has not stopped at the zero id: hang up on it.
    socket.on('data', () => {
      asked = true;
      socket.destroy();
    });
  });
  try {
    const dir = path.join(root, 'by-tsgit-fake');
    const r = await runAsync(process.execPath, [TSGIT, 'clone', '-q', server.url('served.git'), dir], root, clientEnv(root, 0));
    assert.equal(r.status, 128, r.stderr);
    assert.equal(r.stderr, "fatal: 'refs/remotes/origin/broken' has a null OID\n");
    assert.equal(asked, false, 'no want was sent');
    assert.equal(fs.existsSync(dir), false);
  } finally {
    await server.stop();
  }
});

test('git-upload-pack advertising a broken ref: git fails, and so does tsgit, naming the ref', (t) => {
  const advertised = spawnSync('git', ['upload-pack', '--advertise-refs', served], { env: GIT_ENV }).stdout.toString('latin1');
  if (!advertised.includes(`${ZERO} refs/heads/broken`)) {
    t.skip('this git does not advertise broken refs (the test above covers tsgit)');
    return;
  }
  const g = spawnSync('git', ['clone', '-q', `file://${served}`, path.join(root, 'by-git')], { env: GIT_ENV });
  assert.notEqual(g.status, 0, 'git clone fails');
  const r = tsgit(root, ['clone', '-q', '--upload-pack=git-upload-pack', `file://${served}`, path.join(root, 'by-tsgit')]);
  assert.equal(r.status, 128, r.stderr.toString());
  assert.equal(r.stderr.toString(), "fatal: 'refs/remotes/origin/broken' has a null OID\n");
  assert.equal(fs.existsSync(path.join(root, 'by-tsgit')), false);
});
