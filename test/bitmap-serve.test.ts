// upload-pack answering from reachability bitmaps, against git. Clones by git-core from tsgit's
// upload-pack of a bitmapped repository (git's `repack -adb` or tsgit's `repack -a -d -b`) pass
// `git fsck --full` with the same refs, and say "pack-reused N" with N > 0 as git does, which is
// how these tests know the bitmap path was taken. Fetches replayed straight to upload-pack send the
// same objects as git's upload-pack and as tsgit's walk (with include-tag, with blob:none, with
// gaps in the pack). Shallow clones, pack.useBitmaps=false and an unreadable bitmap fall back to
// the walk; objects newer than the bitmap still go out; pack.allowPackReuse=false writes everything
// through the ordinary writer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Repository } from '../src/repository/repository.js';
import { uploadPack } from '../src/server/upload-pack.js';
import { git, GIT_ENV, pkt, rmrf, tmpDir, tsgit, TSGIT } from './helpers.js';

let work: string;
/** A bare repository of 120 commits on main (80 of them at `oldTip`), packed with a bitmap by git. */
let server: string;
let oldTip: string;

const UPLOAD_PACK = `${process.execPath} ${TSGIT} upload-pack`;
const ENV = { ...GIT_ENV, GIT_PROGRESS_DELAY: '0' };

/** Appends commits from..to to main (files edited a little each time, so the pack has deltas). */
function commits(dir: string, from: number, to: number): void {
  const script: string[] = [];
  for (let c = from; c <= to; c++) {
    script.push('commit refs/heads/main', `committer C <c@example.com> ${1700000000 + c * 100} +0000`, 'data 4', `c${String(c).padStart(3, '0')}`);
    if (c === from && c > 1) script.push('from refs/heads/main^0');
    for (let f = c % 4; f < 12; f += 4) {
      const body = Array.from({ length: 200 }, (_, i) => `file ${f} line ${i}${i % 17 === c % 17 ? ` edit ${c}` : ''}`).join('\n') + '\n';
      script.push(`M 100644 inline d${f % 3}/f${f}.txt`, `data ${Buffer.byteLength(body)}`, body);
    }
    if (c % 25 === 0) {
      const body = `new file of commit ${c}\n`.repeat(50);
      script.push(`M 100644 inline added/c${c}.txt`, `data ${Buffer.byteLength(body)}`, body);
    }
  }
  script.push('');
  git(dir, ['fast-import', '--quiet'], script.join('\n'));
}

before(() => {
  work = tmpDir('tsgit-bitmap-serve-');
  server = path.join(work, 'server.git');
  fs.mkdirSync(server);
  git(server, ['init', '-q', '--bare', '-b', 'main', '.']);
  commits(server, 1, 80);
  oldTip = git(server, ['rev-parse', 'main']).trim();
  git(server, ['tag', '-a', '-m', 'old release', 'v0.8', 'main~5']);
  git(server, ['branch', 'maint', 'main~10']);
  commits(server, 81, 120);
  git(server, ['tag', '-a', '-m', 'release', 'v1.0', 'main~3']);
  git(server, ['tag', 'light', 'main~7']);
  git(server, ['repack', '-adbq']);
});

after(() => rmrf(work));

/** A copy of the server repository, to change without disturbing the others. */
function copyOf(name: string): string {
  const dir = path.join(work, name);
  rmrf(dir);
  fs.cpSync(server, dir, { recursive: true });
  return dir;
}

/** Runs git, which must succeed; returns its stderr (where clone and fetch write progress). */
function gitProgress(cwd: string, args: string[]): string {
  const r = spawnSync('git', args, { cwd, env: ENV });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stderr.toString();
}

/** git clone --bare from `src` through tsgit's upload-pack; returns the clone and git's progress. */
function cloneFrom(src: string, name: string, args: string[] = []): { dir: string; progress: string } {
  const dir = path.join(work, name);
  rmrf(dir);
  const progress = gitProgress(work, ['clone', '--bare', '--progress', `--upload-pack=${UPLOAD_PACK}`, ...args, `file://${src}`, dir]);
  return { dir, progress };
}

/** The N of "pack-reused N" in the remote's last Total line. */
function packReused(progress: string): number {
  const m = /Total \d+ \(delta \d+\), reused \d+ \(delta \d+\), pack-reused (\d+)/.exec(progress);
  assert.ok(m, `no Total line in:\n${progress}`);
  return Number(m[1]);
}

function assertSameRepository(clone: string, src: string): void {
  git(clone, ['fsck', '--full', '--no-dangling']);
  const refs = (dir: string) => git(dir, ['for-each-ref', '--format=%(objectname) %(refname)']);
  assert.equal(refs(clone), refs(src));
}

/** A v0 stateless request: wants (capabilities on the first), extra lines, then haves and done. */
function request(wants: string[], haves: string[], caps: string, extra: string[] = []): string {
  return wants.map((w, i) => pkt(`want ${w}${i === 0 ? ` ${caps}` : ''}\n`)).join('') + extra.map(l => pkt(`${l}\n`)).join('')
    + '0000' + haves.map(h => pkt(`have ${h}\n`)).join('') + pkt('done\n');
}

/** Splits an upload-pack response into the pack (band 1) and the progress text (band 2). */
function demux(out: Buffer): { pack: Buffer; progress: string } {
  const parts: Buffer[] = [];
  let progress = '';
  for (let p = 0; p < out.length;) {
    const len = parseInt(out.toString('latin1', p, p + 4), 16);
    if (len < 4) { p += 4; continue; }
    const payload = out.subarray(p + 4, p + len);
    p += len;
    const text = payload.toString('latin1', 0, 3);
    if (text === 'NAK' || text === 'ACK') continue;
    if (payload[0] === 1) parts.push(payload.subarray(1));
    else if (payload[0] === 2) progress += payload.subarray(1).toString();
    else assert.fail(`error from upload-pack: ${payload.subarray(1)}`);
  }
  return { pack: Buffer.concat(parts), progress };
}

/** Indexes a pack with git and returns its object ids, sorted. */
function objectsOf(pack: Buffer, name: string): string[] {
  const file = path.join(work, `${name}.pack`);
  fs.writeFileSync(file, pack);
  git(work, ['index-pack', '-o', path.join(work, `${name}.idx`), file]);
  return git(work, ['show-index'], fs.readFileSync(path.join(work, `${name}.idx`))).split('\n').filter(Boolean)
    .map(l => l.split(' ')[1]!).sort();
}

/** The request answered by tsgit's and by git's upload-pack: each one's objects and progress. */
function serveBoth(dir: string, req: string, name: string): { tsgit: string[]; git: string[]; progress: string } {
  const r = tsgit(dir, ['upload-pack', '--stateless-rpc', '.'], req);
  assert.equal(r.status, 0, r.stderr.toString());
  const ours = demux(r.stdout);
  const theirs = demux(spawnSync('git', ['upload-pack', '--stateless-rpc', '.'], { cwd: dir, env: GIT_ENV, input: req, maxBuffer: 1 << 30 }).stdout);
  return { tsgit: objectsOf(ours.pack, `${name}-tsgit`), git: objectsOf(theirs.pack, `${name}-git`), progress: ours.progress };
}

const FETCH_CAPS = 'multi_ack_detailed side-band-64k include-tag ofs-delta agent=git/2.39.5';

test('git clones from a git-bitmapped repository over v2 and v0: fsck clean, same refs, the pack reused', () => {
  const count = git(server, ['rev-list', '--objects', '--all']).split('\n').filter(Boolean).length;
  for (const version of ['2', '0']) {
    const { dir, progress } = cloneFrom(server, `clone-v${version}`, ['-c', `protocol.version=${version}`]);
    assertSameRepository(dir, server);
    assert.match(progress, new RegExp(`remote: Enumerating objects: ${count}, done\\.`));
    assert.equal(packReused(progress), count, progress);
  }
});

test('a repository repacked by tsgit repack -a -d -b is served from its bitmap', () => {
  const dir = copyOf('tsgit-repacked.git');
  const r = tsgit(dir, ['repack', '-a', '-d', '-b', '-q']);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.ok(fs.readdirSync(path.join(dir, 'objects', 'pack')).some(f => f.endsWith('.bitmap')));
  const { dir: clone, progress } = cloneFrom(dir, 'clone-of-tsgit-repack');
  assertSameRepository(clone, dir);
  assert.ok(packReused(progress) > 0, progress);
});

test('an incremental fetch sends what git and the walk send, with include-tag, and reuses across gaps', () => {
  const req = request([git(server, ['rev-parse', 'main']).trim()], [oldTip], FETCH_CAPS);
  const both = serveBoth(server, req, 'fetch');
  assert.deepEqual(both.tsgit, both.git);
  const tag = git(server, ['rev-parse', 'v1.0']).trim();
  assert.ok(both.tsgit.includes(tag), 'include-tag did not add the annotated tag v1.0');
  const reused = packReused(both.progress);
  assert.ok(reused > 0 && reused < both.tsgit.length, both.progress);
  const walked = copyOf('no-bitmaps.git');
  git(walked, ['config', 'pack.useBitmaps', 'false']);
  const walk = serveBoth(walked, req, 'fetch-walk');
  assert.deepEqual(walk.tsgit, both.tsgit);
  assert.equal(packReused(walk.progress), 0, walk.progress);
});

test('include-tag in a fetch of fewer objects than tag refs: the same objects as git, tags of tags followed, fresh and warm', async () => {
  // More tag refs than objects sent, so the tags are checked against the ids sent rather than
  // placed in the pack one by one (enumerate-bitmap.ts tagChecks); some tags are in the bitmapped
  // pack, one is loose.
  const dir = copyOf('many-tags.git');
  for (let i = 0; i < 40; i++) git(dir, ['tag', '-a', '-m', `old ${i}`, `old-${i}`, `main~${20 + i}`]);
  git(dir, ['tag', '-a', '-m', 'tip', 'tip', 'main']);
  git(dir, ['tag', '-a', '-m', 'a tag of a tag', 'tip-of-tip', 'tip']);
  git(dir, ['tag', 'light-tip', 'main']);
  git(dir, ['repack', '-adbq']);
  git(dir, ['tag', '-a', '-m', 'loose', 'tip-loose', 'main']);
  git(dir, ['pack-refs', '--all']);
  const req = request([git(dir, ['rev-parse', 'main']).trim()], [git(dir, ['rev-parse', 'main~1']).trim()], FETCH_CAPS);
  const both = serveBoth(dir, req, 'many-tags');
  assert.deepEqual(both.tsgit, both.git);
  assert.ok(both.tsgit.length < 40, `${both.tsgit.length} objects sent`);
  for (const t of ['tip', 'tip-of-tip', 'tip-loose']) assert.ok(both.tsgit.includes(git(dir, ['rev-parse', t]).trim()), `include-tag did not add ${t}`);
  assert.ok(!both.tsgit.includes(git(dir, ['rev-parse', 'old-0']).trim()), 'a tag of a commit not sent was added');
  // A serving worker answers the same snapshot again from the tags' pack positions: the same objects.
  const repo = new Repository(dir, null);
  for (let round = 1; round <= 2; round++) {
    const out: Buffer[] = [];
    await uploadPack(repo, { input: (async function* () { yield Buffer.from(req); })(), output: b => { out.push(Buffer.from(b)); }, statelessRpc: true });
    assert.deepEqual(objectsOf(demux(Buffer.concat(out)).pack, `many-tags-warm-${round}`), both.git, `round ${round}`);
  }
});

test('a thin fetch by git from a clone that is behind: fsck clean, tags followed', () => {
  const client = path.join(work, 'behind.git');
  rmrf(client);
  git(work, ['clone', '-q', '--bare', `file://${server}`, client]);
  git(client, ['update-ref', 'refs/heads/main', oldTip]);
  git(client, ['update-ref', '-d', 'refs/heads/maint']);
  git(client, ['tag', '-d', 'v1.0', 'light']);
  git(client, ['repack', '-adq']);
  git(client, ['prune', '--expire=now']);
  const progress = gitProgress(client, ['fetch', '--progress', `--upload-pack=${UPLOAD_PACK}`, 'origin', 'refs/heads/main:refs/heads/main']);
  assert.ok(packReused(progress) > 0, progress);
  git(client, ['fsck', '--full', '--no-dangling']);
  assert.equal(git(client, ['rev-parse', 'main']), git(server, ['rev-parse', 'main']));
  assert.equal(git(client, ['cat-file', '-t', 'v1.0']).trim(), 'tag', 'the annotated tag was not followed');
});

test('--filter=blob:none is answered from the bitmap: the same objects as git, named blobs kept', () => {
  const dir = copyOf('filter.git');
  git(dir, ['config', 'uploadpack.allowFilter', 'true']);
  git(dir, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
  const blob = git(dir, ['rev-parse', 'main:d0/f0.txt']).trim();
  const req = request([git(dir, ['rev-parse', 'main']).trim(), blob], [], `${FETCH_CAPS} filter`, ['filter blob:none']);
  const both = serveBoth(dir, req, 'filter');
  assert.deepEqual(both.tsgit, both.git);
  assert.ok(both.tsgit.includes(blob), 'a blob the client named was filtered out');
  const blobs = git(dir, ['cat-file', '--batch-check=%(objecttype)'], both.tsgit.join('\n') + '\n').split('\n').filter(t => t === 'blob');
  assert.equal(blobs.length, 1);
  assert.ok(packReused(both.progress) > 0, both.progress);
  const { dir: clone, progress } = cloneFrom(dir, 'partial-clone', ['--filter=blob:none']);
  assert.ok(packReused(progress) > 0, progress);
  git(clone, ['fsck', '--no-dangling']);
});

test('a shallow clone is walked, not answered from the bitmap', () => {
  const { dir, progress } = cloneFrom(server, 'shallow', ['--depth', '1', '--no-single-branch']);
  assert.equal(packReused(progress), 0, progress);
  git(dir, ['fsck', '--no-dangling']);
  assert.ok(fs.existsSync(path.join(dir, 'shallow')));
  assert.equal(git(dir, ['rev-parse', 'main']), git(server, ['rev-parse', 'main']));
});

test('objects newer than the bitmap go out with the reused pack', () => {
  const dir = copyOf('stale.git');
  commits(dir, 121, 130);
  git(dir, ['tag', '-a', '-m', 'newer', 'v1.1', 'main']);
  assert.ok(Number(/count: (\d+)/.exec(git(dir, ['count-objects', '-v']))![1]) > 0, 'the new objects are not loose');
  const { dir: clone, progress } = cloneFrom(dir, 'clone-of-stale');
  assertSameRepository(clone, dir);
  assert.ok(packReused(progress) > 0, progress);
});

test('pack.allowPackReuse=false: every object goes through the writer, the clone is whole', () => {
  const dir = copyOf('no-reuse.git');
  git(dir, ['config', 'pack.allowPackReuse', 'false']);
  const { dir: clone, progress } = cloneFrom(dir, 'clone-no-reuse');
  assertSameRepository(clone, dir);
  assert.equal(packReused(progress), 0, progress);
  assert.match(progress, /reused [1-9]\d* \(delta [1-9]\d*\)/);
});

test('pack.useBitmaps=false and an unreadable bitmap fall back to the walk', () => {
  const off = copyOf('bitmaps-off.git');
  git(off, ['config', 'pack.useBitmaps', 'false']);
  const first = cloneFrom(off, 'clone-bitmaps-off');
  assertSameRepository(first.dir, off);
  assert.equal(packReused(first.progress), 0, first.progress);

  const bad = copyOf('bad-bitmap.git');
  const packDir = path.join(bad, 'objects', 'pack');
  const bitmap = path.join(packDir, fs.readdirSync(packDir).find(f => f.endsWith('.bitmap'))!);
  const bytes = fs.readFileSync(bitmap);
  bytes.fill(0xab, 12, 32); // the pack checksum it claims to belong to
  fs.chmodSync(bitmap, 0o644);
  fs.writeFileSync(bitmap, bytes);
  const second = cloneFrom(bad, 'clone-bad-bitmap');
  assertSameRepository(second.dir, bad);
  assert.equal(packReused(second.progress), 0, second.progress);
});
