// verify-pack against git: the same report for the same pack (-v and -s), "ok" for an index tsgit
// wrote, and "bad" with a reason for an index or pack that does not match.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, tsgit } from './helpers.js';

let work: string;
let pack: string;
let idx: string;

before(() => {
  work = tmpDir('tsgit-verify-pack-');
  const repo = makeRepo(30);
  try {
    // A pack with delta chains, as repack writes it.
    git(repo, ['repack', '-adq', '--depth=20', '--window=20']);
    const dir = path.join(repo, '.git', 'objects', 'pack');
    const name = fs.readdirSync(dir).find((n) => n.endsWith('.pack'))!;
    pack = path.join(work, 'p.pack');
    idx = path.join(work, 'p.idx');
    fs.copyFileSync(path.join(dir, name), pack);
    fs.copyFileSync(path.join(dir, name.replace(/\.pack$/, '.idx')), idx);
  } finally {
    rmrf(repo);
  }
});

after(() => rmrf(work));

function both(args: string[]): { ours: string; theirs: string; oursStatus: number | null } {
  const r = tsgit(work, ['verify-pack', ...args]);
  const g = spawnSync('git', ['verify-pack', ...args], { cwd: work, env: GIT_ENV });
  return { ours: r.stdout.toString(), theirs: g.stdout.toString(), oursStatus: r.status };
}

describe('verify-pack', () => {
  it('prints what git prints with -v', () => {
    const { ours, theirs, oursStatus } = both(['-v', 'p.idx']);
    assert.equal(oursStatus, 0);
    assert.match(ours, /^non delta: \d+ objects$/m);
    assert.match(ours, /^chain length = 1: \d+ objects?$/m);
    assert.match(ours, /^p\.pack: ok$/m);
    assert.equal(ours, theirs);
  });

  it('prints only the histogram with -s, and nothing without -v', () => {
    const s = both(['-s', 'p.idx']);
    assert.equal(s.ours, s.theirs);
    assert.doesNotMatch(s.ours, /[0-9a-f]{40}/);
    const quiet = both(['p.pack']);
    assert.equal(quiet.oursStatus, 0);
    assert.equal(quiet.ours, '');
  });

  it('accepts the .idx tsgit writes, and git accepts it too', () => {
    fs.mkdirSync(path.join(work, 'mine'));
    const copy = path.join(work, 'mine', 'q.pack');
    fs.copyFileSync(pack, copy);
    const r = tsgit(work, ['index-pack', copy]);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(tsgit(work, ['verify-pack', path.join('mine', 'q.idx')]).status, 0);
    git(work, ['verify-pack', path.join('mine', 'q.idx')]);
  });

  it('reports an index that does not match its pack', () => {
    fs.mkdirSync(path.join(work, 'bad'));
    const badPack = path.join(work, 'bad', 'b.pack');
    fs.copyFileSync(pack, badPack);
    const bytes = fs.readFileSync(idx);
    // A CRC32 of some object is wrong: everything else still matches.
    const count = bytes.readUInt32BE(8 + 255 * 4);
    bytes[8 + 1024 + count * 20] ^= 1;
    fs.writeFileSync(path.join(work, 'bad', 'b.idx'), bytes);
    const r = tsgit(work, ['verify-pack', '-v', path.join('bad', 'b.idx')]);
    assert.equal(r.status, 1);
    assert.match(r.stdout.toString(), /b\.pack: bad\n$/);
    assert.match(r.stderr.toString(), /b\.idx: index does not match the pack \(first difference at byte \d+\)/);
    assert.notEqual(spawnSync('git', ['verify-pack', path.join('bad', 'b.idx')], { cwd: work, env: GIT_ENV }).status, 0);
  });

  it('reports a corrupt pack', () => {
    fs.mkdirSync(path.join(work, 'corrupt'));
    const bytes = fs.readFileSync(pack);
    bytes[bytes.length - 30] ^= 0x55;
    fs.writeFileSync(path.join(work, 'corrupt', 'c.pack'), bytes);
    fs.copyFileSync(idx, path.join(work, 'corrupt', 'c.idx'));
    const r = tsgit(work, ['verify-pack', path.join('corrupt', 'c.idx')]);
    assert.equal(r.status, 1);
    assert.match(r.stderr.toString(), /^fatal: .*c\.pack: /);
  });
});
