// index-pack on broken and hostile packs: each must fail with an error naming the offset (or the
// object) at fault, and leave no file behind, whether the pack is indexed in place or received
// with --stdin. The packs are built here byte by byte, so each breaks exactly one rule.
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { indexPack } from '../src/packing/index-pack/index.js';
import { GIT_ENV, git, gitBuf, makeRepo, rmrf, TSGIT, tmpDir, tsgit } from './helpers.js';

const BLOB = 3, OFS = 6, REF = 7;

function entryHeader(type: number, size: number): Buffer {
  const out = [(type << 4) | (size % 16)];
  let s = Math.floor(size / 16);
  while (s > 0) {
    out[out.length - 1]! |= 0x80;
    out.push(s % 128);
    s = Math.floor(s / 128);
  }
  return Buffer.from(out);
}

function leb(n: number): Buffer {
  const out: number[] = [];
  do {
    let c = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) c |= 0x80;
    out.push(c);
  } while (n > 0);
  return Buffer.from(out);
}

function ofsDistance(d: number): Buffer {
  const out = [d & 127];
  while ((d >>= 7)) out.unshift(0x80 | (--d & 127));
  return Buffer.from(out);
}

const whole = (type: number, data: Buffer) => Buffer.concat([entryHeader(type, data.length), zlib.deflateSync(data)]);
const ofsDelta = (distance: number, delta: Buffer) => Buffer.concat([entryHeader(OFS, delta.length), ofsDistance(distance), zlib.deflateSync(delta)]);
const refDelta = (base: Buffer, delta: Buffer) => Buffer.concat([entryHeader(REF, delta.length), base, zlib.deflateSync(delta)]);
/** A delta: sizes, then "copy all of the base" and an insert. */
const delta = (baseSize: number, resultSize: number, insert = Buffer.alloc(0)) => Buffer.concat([
  leb(baseSize), leb(resultSize),
  Buffer.from([0x80 | 0x10 | 0x20, baseSize & 0xff, (baseSize >> 8) & 0xff]),
  ...(insert.length ? [Buffer.from([insert.length]), insert] : []),
]);
const blobId = (data: Buffer) => crypto.createHash('sha1').update(`blob ${data.length}\0`).update(data).digest();

function pack(entries: Buffer[], count = entries.length): Buffer {
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(count, 8);
  return withTrailer(Buffer.concat([head, ...entries]));
}

function withTrailer(body: Buffer): Buffer {
  return Buffer.concat([body, crypto.createHash('sha1').update(body).digest()]);
}

let work: string;
let real: Buffer;

before(() => {
  work = tmpDir('tsgit-index-pack-bad-');
  const repo = makeRepo(8);
  try {
    real = gitBuf(repo, ['pack-objects', '-q', '--all', '--stdout', '--delta-base-offset'], '');
  } finally {
    rmrf(repo);
  }
});

after(() => rmrf(work));

let n = 0;
/** Runs index-pack on the pack in place and with --stdin; both must fail, matching `pattern`, and leave nothing. */
function refuses(data: Buffer, pattern: RegExp, extra: string[] = []): string {
  const dir = path.join(work, `case${++n}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'p.pack'), data);
  const r = tsgit(dir, ['index-pack', ...extra, 'p.pack']);
  assert.equal(r.status, 128, `in place: exit ${r.status}, stderr ${r.stderr}`);
  const message = r.stderr.toString();
  assert.match(message, pattern);
  assert.deepEqual(fs.readdirSync(dir), ['p.pack'], 'in place: files left behind');

  const repo = path.join(dir, 'r.git');
  git(dir, ['init', '-q', '--bare', repo]);
  const s = tsgit(repo, ['index-pack', '--stdin', '--fix-thin', ...extra], data);
  assert.equal(s.status, 128, `--stdin: exit ${s.status}, stderr ${s.stderr}`);
  assert.match(s.stderr.toString(), pattern);
  assert.deepEqual(fs.readdirSync(path.join(repo, 'objects', 'pack')), [], '--stdin: files left behind');
  // git refuses it too.
  assert.throws(() => git(dir, ['index-pack', ...extra, '-o', path.join(dir, 'git.idx'), 'p.pack']));
  return message;
}

describe('index-pack refuses malformed packs', () => {
  it('refuses a pack truncated anywhere', () => {
    for (const cut of [0, 8, 12, 13, 40, real.length >> 1, real.length - 21, real.length - 1]) {
      refuses(real.subarray(0, cut), /early EOF.*(offset \d+|pack header|trailer)/);
    }
  });

  it('refuses a bad trailer', () => {
    const bad = Buffer.from(real);
    bad[bad.length - 1]! ^= 1;
    refuses(bad, /pack is corrupted: trailer at offset \d+/);
  });

  it('refuses junk after the trailer', () => {
    const dir = path.join(work, 'junk');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'p.pack'), Buffer.concat([real, Buffer.from('junk')]));
    const r = tsgit(dir, ['index-pack', 'p.pack']);
    assert.equal(r.status, 128);
    assert.match(r.stderr.toString(), /junk at the end/);
    assert.deepEqual(fs.readdirSync(dir), ['p.pack']);
  });

  it('refuses bad zlib data, naming the entry', () => {
    const entry = whole(BLOB, Buffer.from('hello world\n'.repeat(20)));
    entry[entryHeader(BLOB, 240).length + 2]! ^= 0xff;
    refuses(pack([whole(BLOB, Buffer.from('first')), entry]), /entry 1 at offset 26: zlib/);
  });

  it('refuses a delta that declares a 4 GB result, without allocating it', () => {
    const base = Buffer.from('hello world');
    const first = whole(BLOB, base);
    const started = Date.now();
    refuses(pack([first, ofsDelta(first.length, delta(11, 2 ** 32 + 5))]), /entry 1 at offset 32: delta declares a 4294967301-byte result/);
    assert.ok(Date.now() - started < 20000);
  });

  it('refuses an entry whose header declares 4 GB of data it does not have', () => {
    const lying = Buffer.concat([entryHeader(BLOB, 2 ** 32), zlib.deflateSync(Buffer.from('tiny'))]);
    refuses(pack([lying]), /offset 12: inflates to 4 bytes, declared 4294967296/);
  });

  it('refuses a delta shorter than git applies: an empty result in two bytes', () => {
    const first = whole(BLOB, Buffer.from('hello world'));
    refuses(pack([first, ofsDelta(first.length, Buffer.concat([leb(11), leb(0)]))]), /entry 1 at offset 32: delta is 2 bytes, shorter than the 4 git requires/);
  });

  it('refuses a delta whose base has another size', () => {
    const first = whole(BLOB, Buffer.from('hello world'));
    refuses(pack([first, ofsDelta(first.length, delta(12, 12))]), /delta at offset 32: delta expects a 12-byte base, base has 11/);
  });

  it('stops every thread when one finds a bad delta', async () => {
    // Resolver threads start only for packs of THREADS_FROM (2000) objects or more: 1100 bases,
    // each with one delta, so the work is spread over the threads and one of them meets the bad one.
    // REF_DELTAs, which the first pass leaves to the second (it resolves OFS_DELTAs as they come).
    const pairs = 1100, bad = 700, size = 1200;
    const entries: Buffer[] = [];
    for (let i = 0; i < pairs; i++) {
      const base = Buffer.from(`base object number ${String(i).padStart(4, '0')}\n`.repeat(50));
      assert.equal(base.length, size);
      const first = whole(BLOB, base);
      entries.push(first, refDelta(blobId(base), delta(i === bad ? base.length + 1 : base.length, base.length + 1, Buffer.from('!'))));
    }
    const data = pack(entries);
    const message = new RegExp(`delta at offset \\d+: delta expects a ${size + 1}-byte base, base has ${size}`);
    const dir = path.join(work, 'threads');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'p.pack'), data);

    // In this process: every worker thread index-pack started has ended once its promise settles.
    const live = new Set<number>();
    let started = 0;
    const hook = createHook({
      init(id, type) { if (type === 'WORKER') { live.add(id); started++; } },
      destroy(id) { live.delete(id); },
    }).enable();
    try {
      await assert.rejects(indexPack(null, path.join(dir, 'p.pack'), { threads: 4 }), message);
      // A worker's handle is reported destroyed a tick or two after it exits (the hooks batch
      // destroys); a thread that is still running never is.
      const deadline = Date.now() + 2000;
      while (live.size > 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      hook.disable();
    }
    // Three for the first pass, and a fresh one for the second in place of the first pass's
    // stream resolver.
    assert.equal(started, 4, 'index-pack should have started 4 worker threads');
    assert.equal(live.size, 0, `${live.size} worker thread(s) still alive after index-pack failed`);
    assert.deepEqual(fs.readdirSync(dir), ['p.pack'], 'files left behind');

    // The command ends by itself, promptly: a thread left running would keep it alive.
    const cli = spawnSync(process.execPath, [TSGIT, 'index-pack', '--threads=4', 'p.pack'], { cwd: dir, env: GIT_ENV, timeout: 30000 });
    assert.equal(cli.error, undefined, `index-pack did not exit: ${cli.error}`);
    assert.equal(cli.status, 128, cli.stderr.toString());
    assert.match(cli.stderr.toString(), message);
    assert.deepEqual(fs.readdirSync(dir), ['p.pack'], 'files left behind');
    // The same, in place and with --stdin, and git refuses the pack too.
    refuses(data, message, ['--threads=2']);
  });

  it('refuses a REF_DELTA whose base exists nowhere', () => {
    const missing = crypto.randomBytes(20);
    const msg = refuses(pack([whole(BLOB, Buffer.from('x')), refDelta(missing, delta(11, 11))]), /unresolved delta/);
    assert.match(msg, new RegExp(`offset \\d+ needs base ${missing.toString('hex')}`));
  });

  it('refuses an OFS_DELTA whose base offset is inside another entry', () => {
    const first = whole(BLOB, Buffer.from('hello world'));
    refuses(pack([first, ofsDelta(first.length - 1, delta(11, 11))]), /base at offset 13, where no entry starts/);
  });

  it('refuses an object count that lies', () => {
    const count = real.readUInt32BE(8);
    for (const lie of [count + 1, count - 1, 0xffffffff]) {
      const body = Buffer.from(real.subarray(0, real.length - 20));
      body.writeUInt32BE(lie, 8);
      refuses(withTrailer(body), /offset \d+/);
    }
  });

  it('refuses a chain deeper than the limit', async () => {
    const base = Buffer.from('hello world');
    const entries = [whole(BLOB, base)];
    let size = base.length;
    for (let i = 0; i < 5; i++) {
      const prev = entries[entries.length - 1]!;
      entries.push(ofsDelta(prev.length, delta(size, size + 1, Buffer.from('!'))));
      size++;
    }
    const dir = path.join(work, 'deep');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'p.pack'), pack(entries));
    await assert.rejects(indexPack(null, path.join(dir, 'p.pack'), { maxDepth: 4 }), /depth 5 of its chain, deeper than the limit of 4/);
    assert.deepEqual(fs.readdirSync(dir), ['p.pack']);
    const ok = await indexPack(null, path.join(dir, 'p.pack'), { maxDepth: 5 });
    assert.equal(ok.objects, 6);
  });

  it('indexes duplicate objects as git does, and refuses them with --strict', () => {
    const dir = path.join(work, 'dup');
    fs.mkdirSync(dir);
    const data = pack([whole(BLOB, Buffer.from('same')), whole(BLOB, Buffer.from('same'))]);
    fs.writeFileSync(path.join(dir, 'p.pack'), data);
    const r = tsgit(dir, ['index-pack', '-o', 'ours.idx', 'p.pack']);
    assert.equal(r.status, 0, r.stderr.toString());
    git(dir, ['index-pack', '-o', 'git.idx', 'p.pack']);
    assert.ok(fs.readFileSync(path.join(dir, 'ours.idx')).equals(fs.readFileSync(path.join(dir, 'git.idx'))));
    const strict = tsgit(dir, ['index-pack', '--strict', '-o', 'strict.idx', 'p.pack']);
    assert.equal(strict.status, 128);
    assert.match(strict.stderr.toString(), new RegExp(`${blobId(Buffer.from('same')).toString('hex')} appears twice`));
    assert.ok(!fs.existsSync(path.join(dir, 'strict.idx')));
  });
});

describe('index-pack against the repository', () => {
  it('refuses an object whose id the repository holds with other content', () => {
    const dest = path.join(work, 'collide.git');
    git(work, ['init', '-q', '--bare', dest]);
    const hello = Buffer.from('hello\n');
    const id = blobId(hello).toString('hex');
    // The repository's object under that id says something else (as a collision would).
    fs.mkdirSync(path.join(dest, 'objects', id.slice(0, 2)));
    fs.writeFileSync(path.join(dest, 'objects', id.slice(0, 2), id.slice(2)), zlib.deflateSync(Buffer.from('blob 6\0world\n')));
    const data = pack([whole(BLOB, hello)]);
    const r = tsgit(dest, ['index-pack', '--stdin'], data);
    assert.equal(r.status, 128);
    assert.match(r.stderr.toString(), new RegExp(`SHA1 COLLISION FOUND WITH ${id}`));
    assert.deepEqual(fs.readdirSync(path.join(dest, 'objects', 'pack')), []);
    assert.throws(() => git(dest, ['index-pack', '--stdin'], data), /COLLISION/);
  });
});

describe('index-pack --strict', () => {
  const tree = (entries: [string, string, Buffer][]) =>
    Buffer.concat(entries.map(([mode, name, id]) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), id])));
  const typed = (type: string, data: Buffer) => crypto.createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest();

  it('accepts a complete pack', () => {
    const repo = makeRepo(4);
    let data: Buffer;
    try {
      data = gitBuf(repo, ['pack-objects', '-q', '--all', '--stdout'], '');
    } finally {
      rmrf(repo);
    }
    const dest = path.join(work, 'strict-ok.git');
    git(work, ['init', '-q', '--bare', dest]);
    const r = tsgit(dest, ['index-pack', '--strict', '--stdin'], data);
    assert.equal(r.status, 0, r.stderr.toString());
  });

  it('refuses a tree that points at an object nobody sent', () => {
    const missing = crypto.randomBytes(20);
    const t = tree([['100644', 'file', missing]]);
    const data = pack([whole(2, t)]);
    const msg = refuses(data, /did not receive expected object/, ['--strict']);
    assert.match(msg, new RegExp(missing.toString('hex')));
  });

  it('refuses a tree entry whose mode names the wrong type', () => {
    const blob = Buffer.from('not a tree\n');
    const t = tree([['40000', 'dir', blobId(blob)]]);
    refuses(pack([whole(BLOB, blob), whole(2, t)]), new RegExp(`object type mismatch at ${blobId(blob).toString('hex')}`), ['--strict']);
  });

  it('refuses a tree with a .git entry, as git --strict does', () => {
    const blob = Buffer.from('x\n');
    const t = tree([['100644', '.git', blobId(blob)]]);
    refuses(pack([whole(BLOB, blob), whole(2, t)]), new RegExp(`fsck error in packed object tree ${typed('tree', t).toString('hex')}: hasDotgit`), ['--strict']);
  });

  it('with --fsck-objects checks the objects but not what they point to, as git does', () => {
    const blob = Buffer.from('x\n');
    refuses(pack([whole(BLOB, blob), whole(2, tree([['100644', '.git', blobId(blob)]]))]), /fsck error in packed object tree .*: hasDotgit/, ['--fsck-objects']);
    // A shallow or partial pack: the tree's blob is deliberately absent.
    const data = pack([whole(2, tree([['100644', 'file', crypto.randomBytes(20)]]))]);
    const dir = path.join(work, 'fsck-objects');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'p.pack'), data);
    const r = tsgit(dir, ['index-pack', '--fsck-objects', '-o', 'mine.idx', 'p.pack']);
    assert.equal(r.status, 0, r.stderr.toString());
    git(dir, ['index-pack', '--fsck-objects', '-o', 'git.idx', 'p.pack']);
    assert.deepEqual(fs.readFileSync(path.join(dir, 'mine.idx')), fs.readFileSync(path.join(dir, 'git.idx')));
  });

  it('with badTree ignored, a tree that cannot be parsed yields no references (and the check ends)', async () => {
    const dir = path.join(work, 'bad-tree-ignored');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'p.pack'), pack([whole(2, Buffer.from('100644file'))]));
    const result = await indexPack(null, path.join(dir, 'p.pack'), { strict: { strict: true, levels: { badTree: 'ignore' } }, threads: 1 });
    assert.equal(result.objects, 1);
  });
});
