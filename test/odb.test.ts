// The object database against git: every object of a repository (loose, packed, deltified, idx v1,
// 64-bit offsets, alternates) reads back as git's cat-file --batch prints it; malformed storage
// fails with an error that names the file and offset.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, describe, test } from 'node:test';
import { CorruptError, GitError } from '../src/core/errors.js';
import { fromHex, toHex } from '../src/core/oid.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { BlobReader } from '../src/worktree/checkout/blob-reader.js';
import { PackIndex } from '../src/pack/idx/read.js';
import { DeltaBaseCache, RECYCLE, SPECULATIVE } from '../src/odb/delta-base-cache.js';
import { typeName, OBJ_BLOB, OBJ_TREE } from '../src/object/type.js';
import { compareTreeEntries, serializeTree, TreeCursor, type TreeEntry } from '../src/object/tree.js';
import { git, gitBuf, makeRepo, rmrf, tmpDir } from './helpers.js';
import { makeDelta, objectId, writePack } from './pack-builder.js';

const cleanup: string[] = [];
after(() => { for (const d of cleanup) rmrf(d); });

/** Parses `git cat-file --batch --batch-all-objects` into id -> [type, content]. */
function gitObjects(gitDir: string): Map<string, [string, Buffer]> {
  const out = gitBuf(gitDir, ['cat-file', '--batch', '--batch-all-objects']);
  const map = new Map<string, [string, Buffer]>();
  let p = 0;
  while (p < out.length) {
    const nl = out.indexOf(0x0a, p);
    const [id, type, size] = out.toString('latin1', p, nl).split(' ') as [string, string, string];
    const start = nl + 1;
    map.set(id, [type, out.subarray(start, start + Number(size))]);
    p = start + Number(size) + 1;
  }
  return map;
}

function assertSameAsGit(gitDir: string, objectsDir = path.join(gitDir, 'objects')): number {
  const expected = gitObjects(gitDir);
  const odb = new ObjectDatabase(objectsDir);
  try {
    const seen: string[] = [];
    odb.forEachId((buf, off) => { seen.push(toHex(buf, off)); });
    assert.deepEqual(seen, [...expected.keys()], 'forEachId lists the same ids as git, sorted');
    for (const [id, [type, data]] of expected) {
      const o = odb.read(fromHex(id)!);
      assert.ok(o, `missing ${id}`);
      assert.equal(typeName(o.type), type, `type of ${id}`);
      assert.ok(o.data.equals(data), `content of ${id}`);
      const info = odb.info(fromHex(id)!);
      assert.deepEqual(info && [typeName(info.type), info.size], [type, data.length], `info of ${id}`);
    }
  } finally {
    odb.close();
  }
  return expected.size;
}

/** A repository whose history deltifies: one file edited many times, plus a few more. */
function deltaRepo(commits = 60): string {
  const dir = makeRepo(commits);
  const lines: string[] = [];
  let text = Array.from({ length: 300 }, (_, i) => `line ${i} of a file that changes slowly\n`).join('');
  for (let i = 0; i < 40; i++) {
    text = text.replace(`line ${i * 7} `, `line ${i * 7} edited ${i} `);
    lines.push(`commit refs/heads/main`, `committer C <c@example.com> ${1800000000 + i} +0000`, `data ${`e${i}`.length}`, `e${i}`);
    if (i === 0) lines.push('from refs/heads/main^0');
    lines.push(`M 100644 inline big.txt`, `data ${Buffer.byteLength(text)}`, text);
  }
  git(dir, ['fast-import', '--quiet', '--force'], lines.join('\n') + '\n');
  return dir;
}

describe('object database reads what git wrote', () => {
  test('loose objects only', () => {
    const dir = makeRepo(8);
    cleanup.push(dir);
    assert.ok(assertSameAsGit(path.join(dir, '.git')) > 20);
  });

  test('one pack with long delta chains, plus loose objects', () => {
    const dir = deltaRepo();
    cleanup.push(dir);
    git(dir, ['repack', '-adq', '--depth=50', '--window=50']);
    const verify = git(dir, ['verify-pack', '-v', ...fs.readdirSync(path.join(dir, '.git/objects/pack')).filter(f => f.endsWith('.idx')).map(f => `.git/objects/pack/${f}`)]);
    assert.match(verify, /chain length = [2-9]/, 'the pack really has delta chains');
    fs.writeFileSync(path.join(dir, 'new.txt'), 'a loose blob after the pack\n');
    git(dir, ['add', 'new.txt']);
    git(dir, ['commit', '-qm', 'loose']);
    assert.ok(assertSameAsGit(path.join(dir, '.git')) > 100);
  });

  test('REF_DELTA entries and idx v1', () => {
    const dir = deltaRepo(10);
    cleanup.push(dir);
    const gitDir = path.join(dir, '.git');
    const packDir = path.join(gitDir, 'objects/pack');
    const revs = git(dir, ['rev-list', '--objects', '--all']);
    const packOut = gitBuf(dir, ['pack-objects', '--depth=20', path.join(packDir, 'pack')], revs).toString().trim();
    // Re-index the pack as v1 in place of git's v2 index.
    const base = path.join(packDir, `pack-${packOut}`);
    fs.rmSync(base + '.idx');
    git(dir, ['index-pack', '--index-version=1', '-o', base + '.idx', base + '.pack']);
    assert.equal(fs.readFileSync(base + '.idx').readUInt32BE(0) === 0xff744f63, false, 'idx is v1');
    git(dir, ['prune-packed']);
    assertSameAsGit(gitDir);
  });

  test('64-bit offsets in idx v2', () => {
    const dir = deltaRepo(10);
    cleanup.push(dir);
    const gitDir = path.join(dir, '.git');
    git(dir, ['repack', '-adq']);
    const packDir = path.join(gitDir, 'objects/pack');
    const idx = fs.readdirSync(packDir).find(f => f.endsWith('.idx'))!;
    const base = path.join(packDir, idx.slice(0, -4));
    fs.rmSync(base + '.idx');
    git(dir, ['index-pack', '--index-version=2,0x100', '-o', base + '.idx', base + '.pack']);
    assertSameAsGit(gitDir);
  });

  test('a pack that disappears between the listing and its opening is passed over, as by git', () => {
    // A concurrent repack deletes the packs it replaced; an .idx that is listed but cannot be
    // opened (here a dangling symlink beside a real .pack) is what the scan then meets.
    const dir = deltaRepo(5);
    cleanup.push(dir);
    const gitDir = path.join(dir, '.git');
    git(dir, ['repack', '-adq']);
    const packDir = path.join(gitDir, 'objects/pack');
    const pack = fs.readdirSync(packDir).find(f => f.endsWith('.pack'))!;
    const gone = 'pack-' + '0'.repeat(40);
    fs.copyFileSync(path.join(packDir, pack), path.join(packDir, gone + '.pack'));
    fs.symlinkSync(path.join(packDir, 'deleted.idx'), path.join(packDir, gone + '.idx'));
    assert.ok(assertSameAsGit(gitDir) > 10);
  });

  test('alternates', () => {
    const upstream = deltaRepo(5);
    cleanup.push(upstream);
    git(upstream, ['repack', '-adq']);
    const borrower = tmpDir();
    cleanup.push(borrower);
    git(borrower, ['clone', '-q', '--shared', '--bare', upstream, 'b.git']);
    const gitDir = path.join(borrower, 'b.git');
    assert.equal(fs.readdirSync(path.join(gitDir, 'objects/pack')).length, 0, 'the borrower has no objects of its own');
    assertSameAsGit(gitDir);
  });
});

describe('pack index lookup', () => {
  test('finds every id and no other when ids are skewed or share their first five bytes', () => {
    // A v2 index built by hand: one crowded fan-out bucket of clustered ids (interpolation guesses
    // badly there), runs of ids equal in five or more bytes, and a few ids in other buckets.
    const ids: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      const id = Buffer.alloc(20);
      id[0] = 0x42;
      id.writeUInt32BE(i < 2000 ? i * 3 : 0xff000000 + i * 977, 1); // clustered low, then a sparse tail
      id.writeUInt32BE((i * 2654435761) >>> 0, 16);
      ids.push(id);
      if (i % 50 === 0) for (let k = 1; k <= 3; k++) { const twin = Buffer.from(id); twin[5 + k] = k; twin[19] ^= k; ids.push(twin); }
    }
    for (let b = 0; b < 256; b += 37) { const id = Buffer.alloc(20, b); ids.push(id); }
    const sorted = [...new Map(ids.map(id => [id.toString('hex'), id])).values()].sort(Buffer.compare);
    const n = sorted.length;
    const buf = Buffer.alloc(8 + 1024 + n * 28 + 40);
    buf.writeUInt32BE(0xff744f63, 0);
    buf.writeUInt32BE(2, 4);
    for (let b = 0; b < 256; b++) buf.writeUInt32BE(sorted.filter(id => id[0]! <= b).length, 8 + 4 * b);
    sorted.forEach((id, i) => { id.copy(buf, 8 + 1024 + 20 * i); buf.writeUInt32BE(12 + i, 8 + 1024 + n * 24 + 4 * i); });
    const index = new PackIndex(buf, 'crafted.idx');
    sorted.forEach((id, i) => {
      assert.equal(index.find(id), i, `id ${id.toString('hex')}`);
      const near = Buffer.from(id);
      near[19] ^= 0x80;
      const at = index.find(near);
      assert.ok(at === -1 || index.oid(at).equals(near), `a missing neighbour of ${id.toString('hex')} is not found`);
    });
    assert.equal(index.find(Buffer.alloc(20, 0x41)), -1);
    assert.equal(index.find(Buffer.from('42ffffffff' + '00'.repeat(15), 'hex')), -1, 'beyond the last id of a bucket');
  });
});

describe('delta-base cache', () => {
  test('a small cache that evicts and recycles all the time still returns every object exactly', () => {
    const dir = deltaRepo();
    cleanup.push(dir);
    const gitDir = path.join(dir, '.git');
    git(dir, ['repack', '-adq', '--depth=50', '--window=50']);
    const expected = gitObjects(gitDir);
    // Bases of the 12 KB file are big enough for recycled buffers; 64 KiB holds only a few.
    const odb = new ObjectDatabase(path.join(gitDir, 'objects'), new DeltaBaseCache(64 * 1024));
    try {
      const ids = [...expected.keys()];
      const kept: [string, Buffer][] = [];
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < ids.length; i++) {
          const id = ids[(i * 7919 + round * 31) % ids.length]!;
          const want = expected.get(id)![1];
          const t = odb.read(fromHex(id)!, 0, true)!;
          assert.ok(t.data.equals(want), `transient read of ${id}`);
          // Kept reads must survive later reads that recycle evicted buffers.
          if (i % 3 === round) kept.push([id, odb.read(fromHex(id)!)!.data]);
        }
      }
      for (const [id, data] of kept) assert.ok(data.equals(expected.get(id)![1]), `kept read of ${id} was overwritten`);
    } finally {
      odb.close();
    }
  });

  test('entries come back until evicted, least recently used first, speculative ones within their own budget', () => {
    const limit = 60 * 4096;
    const cache = new DeltaBaseCache(limit);
    const model = new Map<string, number>(); // key -> fill byte, in recency order
    const touch = (k: string, v: number) => { model.delete(k); model.set(k, v); };
    let bytes = 0;
    for (let i = 0; i < 3000; i++) {
      const pack = i % 3, offset = ((i * 2654435761) >>> 0) % 97 * 1000 + 12;
      const key = `${pack}:${offset}`;
      if (i % 2) {
        const hit = cache.get(pack, offset, false);
        assert.equal(hit === undefined, !model.has(key), `presence of ${key} at step ${i}`);
        if (hit) {
          assert.equal(hit.data[0], model.get(key), `content of ${key}`);
          touch(key, model.get(key)!);
        }
      } else if (!model.has(key)) {
        const data = cache.take(4096);
        data.fill(i & 0xff);
        cache.set(pack, offset, 3, data.subarray(0, 4096), RECYCLE);
        touch(key, i & 0xff);
        bytes += 4096;
        while (bytes > limit) { model.delete(model.keys().next().value!); bytes -= 4096; }
      }
    }
    // Speculative entries get a sixth of the limit, the most recent ones kept; the total stays
    // within the limit, so they take the place of the least recently used bases.
    assert.equal(model.size, limit / 4096, 'the cache is full of bases');
    for (let i = 0; i < 30; i++) cache.set(9, 12 + i, 2, Buffer.alloc(4096, 1), SPECULATIVE);
    const speculative = Math.floor(limit / 6 / 4096);
    for (let i = 0; i < 30; i++) assert.equal(!!cache.get(9, 12 + i, false), i >= 30 - speculative, `speculative entry ${i}`);
    let k = 0;
    for (const key of model.keys()) {
      const [pack, offset] = key.split(':').map(Number) as [number, number];
      assert.equal(!!cache.get(pack, offset, false), k++ >= speculative, `base ${key}, ${k}th least recently used`);
    }
  });
});

describe('writing', () => {
  test('loose objects tsgit writes are read by git and pass fsck', () => {
    const dir = makeRepo(2);
    cleanup.push(dir);
    const odb = new ObjectDatabase(path.join(dir, '.git/objects'));
    const data = Buffer.from('written by tsgit\n');
    const id = odb.writeLoose(OBJ_BLOB, data);
    assert.equal(toHex(id), git(dir, ['hash-object', '--stdin'], data).trim());
    assert.ok(odb.writeLoose(OBJ_BLOB, data).equals(id), 'writing it again gives the same id');
    odb.close();
    assert.equal(git(dir, ['cat-file', 'blob', toHex(id)]), data.toString());
    git(dir, ['fsck', '--full', '--strict']);
    assert.deepEqual(fs.readdirSync(path.join(dir, '.git/objects', toHex(id).slice(0, 2))).filter(n => n.startsWith('tmp')), [], 'no temporary file left');
  });

  test('trees re-serialised from their parsed, re-sorted entries are byte-identical', () => {
    const dir = deltaRepo(10);
    cleanup.push(dir);
    const odb = new ObjectDatabase(path.join(dir, '.git/objects'));
    let trees = 0;
    for (const line of git(dir, ['rev-list', '--objects', '--all']).trim().split('\n')) {
      const id = fromHex(line.slice(0, 40))!;
      const o = odb.read(id)!;
      if (o.type !== OBJ_TREE) continue;
      const entries: TreeEntry[] = [];
      const cur = new TreeCursor(o.data);
      while (cur.next()) entries.push({ mode: cur.mode, name: cur.nameBytes(), oid: o.data.subarray(cur.oidOffset, cur.oidOffset + 20) });
      entries.reverse().sort(compareTreeEntries);
      assert.ok(serializeTree(entries).equals(o.data), `tree ${line.slice(0, 40)}`);
      trees++;
    }
    odb.close();
    assert.ok(trees > 20, `only ${trees} trees`);
  });
});

describe('malformed storage gives a clear error', () => {
  function packRepo(): { dir: string; objects: string } {
    const dir = tmpDir();
    cleanup.push(dir);
    fs.mkdirSync(path.join(dir, 'objects/pack'), { recursive: true });
    return { dir, objects: path.join(dir, 'objects') };
  }

  /**
   * `fn` throws a GitError whose message, or that of an error causing it, mentions each of
   * `mustMention`: a read with no copy left says git's `packed object <id> (stored in <pack>) is
   * corrupt`, caused by the error that says what is wrong where.
   */
  function expectCorrupt(fn: () => unknown, ...mustMention: (string | RegExp)[]): void {
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof GitError, `expected a GitError, got ${e}`);
      const messages: string[] = [];
      for (let c: unknown = e; c instanceof Error; c = c.cause) messages.push(c.message);
      const text = messages.join('\n');
      for (const m of mustMention) {
        if (typeof m === 'string') assert.ok(text.includes(m), `"${text}" should mention ${m}`);
        else assert.match(text, m);
      }
      return true;
    });
  }

  /** A database over `objects` whose warnings are collected in the array returned with it. */
  function warnedDatabase(objects: string): { odb: ObjectDatabase; warnings: string[] } {
    const odb = new ObjectDatabase(objects);
    const warnings: string[] = [];
    odb.warn = (text) => warnings.push(text);
    return { odb, warnings };
  }

  const blob = Buffer.from('hello, base object\n'.repeat(10));

  // A pack whose index cannot be read is passed over, as git passes over it: a lookup that reaches
  // it says why in git's words (its load_idx()), and finds nothing there.
  test('truncated .idx', () => {
    const { objects } = packRepo();
    const { idx, oids } = writePack(path.join(objects, 'pack'), [{ type: 3, data: blob }]);
    fs.truncateSync(idx, 600);
    const { odb, warnings } = warnedDatabase(objects);
    assert.equal(odb.read(oids[0]!), null);
    assert.equal(warnings[0], `error: index file ${idx} is too small\n`);
    odb.close();
  });

  test('bad fan-out table', () => {
    const { objects } = packRepo();
    const { idx, oids } = writePack(path.join(objects, 'pack'), [{ type: 3, data: blob }]);
    const buf = fs.readFileSync(idx);
    buf.writeUInt32BE(5, 8 + 4 * 10); // entry 10 larger than entry 11
    fs.writeFileSync(idx, buf);
    const { odb, warnings } = warnedDatabase(objects);
    assert.equal(odb.has(oids[0]!), false);
    assert.equal(warnings[0], `error: non-monotonic index ${idx}\n`);
    odb.close();
  });

  test('corrupt zlib stream', () => {
    const { objects } = packRepo();
    const z = zlib.deflateSync(blob);
    z[4] ^= 0xff;
    const { pack, oids, offsets } = writePack(path.join(objects, 'pack'), [{ type: 3, data: blob, rawZlib: z }]);
    const { odb, warnings } = warnedDatabase(objects);
    expectCorrupt(() => odb.read(oids[0]!), `packed object ${toHex(oids[0]!)} (stored in ${pack}) is corrupt`, `offset ${offsets[0]}`, 'zlib');
    // What git prints on the way, from its inflate error.
    assert.match(warnings.join(''), /^error: inflate: data stream error \(.+\)\n$/);
    odb.close();
  });

  test('delta whose declared base size does not match the base', () => {
    const { objects } = packRepo();
    const delta = makeDelta(blob.length + 5, 10, 10, Buffer.alloc(0));
    const { pack, oids, offsets } = writePack(path.join(objects, 'pack'), [
      { type: 3, data: blob },
      { type: 6, data: delta, base: 0, oid: objectId(3, blob.subarray(0, 10)) },
    ]);
    const odb = new ObjectDatabase(objects);
    expectCorrupt(() => odb.read(oids[1]!), pack, `offset ${offsets[1]}`, 'base');
    odb.close();
  });

  test('delta declaring a result far beyond what it produces', () => {
    const { objects } = packRepo();
    const delta = makeDelta(blob.length, 4 * 1024 ** 3, 10, Buffer.alloc(0));
    const { pack, oids, offsets } = writePack(path.join(objects, 'pack'), [
      { type: 3, data: blob },
      { type: 6, data: delta, base: 0, oid: objectId(3, Buffer.from('x')) },
    ]);
    const odb = new ObjectDatabase(objects);
    const before = process.memoryUsage().rss;
    expectCorrupt(() => odb.read(oids[1]!), pack, `offset ${offsets[1]}`, String(4 * 1024 ** 3));
    assert.ok(process.memoryUsage().rss - before < 512 * 1024 * 1024, 'the declared size was not allocated');
    odb.close();
  });

  test('entry headers declaring sizes the rest of the pack cannot hold', () => {
    // Found by fuzzing: the header's size was allocated before inflating, so 2^40 threw a
    // RangeError from Buffer.allocUnsafe instead of a CorruptError (a whole object and a delta alike).
    const { objects } = packRepo();
    const huge = 2 ** 40;
    const { pack, oids, offsets } = writePack(path.join(objects, 'pack'), [
      { type: 3, data: blob },
      { type: 3, data: Buffer.from('small'), size: huge },
      { type: 6, data: makeDelta(blob.length, 10, 10, Buffer.alloc(0)), base: 0, size: huge, oid: objectId(3, blob.subarray(0, 10)) },
      { type: 3, data: blob, size: 2 ** 31, oid: objectId(3, Buffer.from('3')) },
    ]);
    // A failed read marks the entry bad, and later lookups pass over it (as git's): each read here
    // is a database's first.
    const fresh = <T>(fn: (db: ObjectDatabase) => T): T => {
      const db = new ObjectDatabase(objects);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    for (const i of [1, 2]) {
      expectCorrupt(() => fresh(db => db.read(oids[i]!)), pack, `offset ${offsets[i]}`, String(huge));
      expectCorrupt(() => fresh(db => db.info(oids[i]!)), pack, `offset ${offsets[i]}`, String(huge));
    }
    // Under Buffer's limit, yet far beyond what 200 compressed bytes inflate to: refused, not allocated.
    expectCorrupt(() => fresh(db => db.read(oids[3]!)), pack, `offset ${offsets[3]}`, String(2 ** 31));
    const odb = new ObjectDatabase(objects);
    assert.equal(odb.read(oids[0]!)!.data.toString(), blob.toString());
    // Checkout's own pack reader allocated the same sizes (a RangeError from `tsgit checkout`).
    const blobs = new BlobReader(odb);
    for (const i of [1, 2, 3]) expectCorrupt(() => blobs.read(oids[i]!), pack, `offset ${offsets[i]}`);
    assert.equal(blobs.read(oids[0]!).toString(), blob.toString());
    blobs.close();
    odb.close();
  });

  test('delta whose result is shorter than declared', () => {
    const { objects } = packRepo();
    const delta = makeDelta(blob.length, 50, 10, Buffer.alloc(0));
    const { oids } = writePack(path.join(objects, 'pack'), [
      { type: 3, data: blob },
      { type: 6, data: delta, base: 0, oid: objectId(3, Buffer.from('y')) },
    ]);
    const odb = new ObjectDatabase(objects);
    expectCorrupt(() => odb.read(oids[1]!), 'produced 10 bytes, declared 50');
    odb.close();
  });

  test('OFS_DELTA offset outside the pack', () => {
    const { objects } = packRepo();
    const delta = makeDelta(blob.length, 10, 10, Buffer.alloc(0));
    const { pack, oids } = writePack(path.join(objects, 'pack'), [
      { type: 3, data: blob },
      { type: 6, data: delta, ofsDistance: 100000, oid: objectId(3, Buffer.from('z')) },
    ]);
    const odb = new ObjectDatabase(objects);
    expectCorrupt(() => odb.read(oids[1]!), pack, 'outside the pack');
    odb.close();
  });

  test('pack object count disagreeing with its index', () => {
    const { objects } = packRepo();
    const { pack, oids } = writePack(path.join(objects, 'pack'), [{ type: 3, data: blob }], { count: 7 });
    const { odb, warnings } = warnedDatabase(objects);
    assert.equal(odb.read(oids[0]!), null);
    assert.equal(warnings[0], `error: packfile ${pack} claims to have 7 objects while index indicates 1 objects\n`);
    odb.close();
  });

  test('loose object whose header lies about its size', () => {
    const { objects } = packRepo();
    const id = objectId(3, blob);
    const hex = id.toString('hex');
    fs.mkdirSync(path.join(objects, hex.slice(0, 2)));
    const file = path.join(objects, hex.slice(0, 2), hex.slice(2));
    fs.writeFileSync(file, zlib.deflateSync(Buffer.concat([Buffer.from(`blob ${blob.length + 100}\0`), blob])));
    const odb = new ObjectDatabase(objects);
    expectCorrupt(() => odb.read(id), file, String(blob.length + 100));
    // and one claiming an absurd size must not allocate it
    fs.writeFileSync(file, zlib.deflateSync(Buffer.concat([Buffer.from(`blob 99999999999\0`), blob])));
    const odb2 = new ObjectDatabase(objects);
    expectCorrupt(() => odb2.read(id), file);
    odb.close();
    odb2.close();
  });

  test('errors are CorruptErrors from the odb layer', () => {
    const { objects } = packRepo();
    const z = Buffer.from('not zlib at all');
    const { oids } = writePack(path.join(objects, 'pack'), [{ type: 3, data: blob, rawZlib: z }]);
    const odb = new ObjectDatabase(objects);
    assert.throws(() => odb.read(oids[0]!), CorruptError);
    odb.close();
  });
});
