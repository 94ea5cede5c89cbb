// Pack bitmaps against git: tsgit reads what `git repack -adb` writes (with and without the name-hash
// cache, the lookup table and a .rev file) and finds for every bitmapped commit exactly the objects
// `git rev-list --objects` lists, the types `git cat-file` reports, git's commit selection and git's
// name hashes; then git reads what tsgit writes (`git rev-list --test-bitmap`, and
// `--use-bitmap-index --objects --all` equal to the object walk). Malformed bitmaps are refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CorruptError, GitError } from '../src/core/errors.js';
import { sha1 } from '../src/core/hash.js';
import { fromHex, toHex } from '../src/core/oid.js';
import { typeCode, typeName } from '../src/object/type.js';
import { ObjectDatabase } from '../src/odb/database.js';
import type { StoredPack } from '../src/odb/object-store.js';
import { PackIndex } from '../src/pack/idx/read.js';
import { PackFile } from '../src/pack/pack-file.js';
import { readPackTypes } from '../src/pack/bitmap/pack-types.js';
import { buildPackBitmap } from '../src/packing/bitmap/build.js';
import { EwahBitmap, encodeEwah } from '../src/pack/bitmap/ewah.js';
import { MultiPackIndex } from '../src/pack/bitmap/midx.js';
import { PackOrder } from '../src/pack/bitmap/pack-order.js';
import { PackReachability } from '../src/packing/bitmap/reachability.js';
import { PackBitmap } from '../src/pack/bitmap/read.js';
import { selectBitmapCommits } from '../src/packing/bitmap/select.js';
import { writeBitmapFile } from '../src/pack/bitmap/write.js';
import { packNameHash, packNameHashOf } from '../src/pack/name-hash.js';
import { ObjectWalk } from '../src/walk/object-walk.js';
import { FastImport, mainLine } from './fast-import-history.js';
import { GIT_ENV, git, gitBuf, rmrf, tmpDir } from './helpers.js';

let repo = '';

/**
 * A bare repository of `n` main-line commits with nested directories and blobs shared between
 * paths, a three-commit side branch merged back every 40 commits, and annotated tags on a commit, on
 * a tag and on a blob, plus a lightweight tag. Every commit has its own committer date. With
 * `packs` > 1 the history arrives in that many imports, each packed on its own (`repack -d`).
 */
function buildRepo(n: number, packs = 1): string {
  const dir = tmpDir('tsgit-bitmap-');
  git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const marks = path.join(dir, 'marks');
  const fi = new FastImport(dir);
  mainLine(fi, n, 40, i => {
    if (i % Math.ceil(n / packs) !== 0 && i !== n) return;
    fi.flush([], [`--export-marks=${marks}`, `--import-marks-if-exists=${marks}`]);
    if (packs > 1) git(dir, ['repack', '-dq']);
  });
  fs.rmSync(marks);
  git(dir, ['tag', '-a', '-m', 'release', 'v1', 'main~30']);
  git(dir, ['tag', '-a', '-m', 'nested', 'v1-signed', 'v1']);
  git(dir, ['tag', '-a', '-m', 'a blob', 'blobtag', 'main:same/copy.txt']);
  git(dir, ['tag', 'light', 'main~100']);
  if (packs > 1) git(dir, ['repack', '-dq']);
  return dir;
}

function packFiles(dir: string): { idx: string; pack: string; bitmap: string; rev: string } {
  const pdir = path.join(dir, 'objects', 'pack');
  const idx = fs.readdirSync(pdir).filter(f => f.endsWith('.idx'));
  assert.equal(idx.length, 1, `one pack expected in ${pdir}`);
  const base = path.join(pdir, idx[0]!.slice(0, -4));
  return { idx: base + '.idx', pack: base + '.pack', bitmap: base + '.bitmap', rev: base + '.rev' };
}

function repack(config: string[]): void {
  const args: string[] = [];
  for (const c of config) args.push('-c', c);
  git(repo, [...args, 'repack', '-adbq']);
}

function openBitmap(): PackBitmap {
  const f = packFiles(repo);
  const b = PackBitmap.open({ idxPath: f.idx, packPath: f.pack });
  assert.ok(b, 'git wrote a bitmap');
  return b;
}

/** Object ids of `git rev-list --objects <args>`, sorted. */
function revListObjects(args: string[], dir = repo): string[] {
  return git(dir, ['rev-list', '--objects', ...args]).split('\n').filter(Boolean).map(l => l.slice(0, 40)).sort();
}

function bitmapObjects(b: PackBitmap, commitIndexPos: number): string[] {
  const bits = b.bitmapForIndex(commitIndexPos);
  assert.ok(bits, `bitmap for ${toHex(b.index.oid(commitIndexPos))}`);
  const out: string[] = [];
  bits.forEach(pos => out.push(toHex(b.oidAt(pos))));
  return out.sort();
}

/** Every object's type as git reports it. */
function gitTypes(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of git(dir, ['cat-file', '--batch-check=%(objectname) %(objecttype)', '--batch-all-objects']).split('\n')) {
    if (l) out.set(l.slice(0, 40), typeCode(l.slice(41)));
  }
  return out;
}

/** The path git names each object by in `rev-list --objects --all` (pack-objects uses the same walk). */
function gitPaths(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of git(dir, ['rev-list', '--objects', '--all']).split('\n')) if (l) out.set(l.slice(0, 40), l.slice(41));
  return out;
}

/** hashCache 'zeros': present but empty, as git 2.39 writes it for multi-pack-index bitmaps. */
function checkAgainstGit(b: PackBitmap, opts: { hashCache: boolean | 'zeros'; lookupTable: boolean }, dir = repo): void {
  assert.equal(b.hasHashCache, opts.hashCache !== false);
  assert.equal(b.hasLookupTable, opts.lookupTable);
  b.verifyChecksum();
  // Types.
  const types = gitTypes(dir);
  assert.equal(types.size, b.count);
  const t = b.typeBitmaps;
  assert.equal(t.commits.count() + t.trees.count() + t.blobs.count() + t.tags.count(), b.count, 'each object in exactly one type bitmap');
  for (let pos = 0; pos < b.count; pos++) assert.equal(b.typeAt(pos), types.get(toHex(b.oidAt(pos))), `type of position ${pos}`);
  assert.ok(t.tags.count() >= 3);
  // Every bitmapped commit reaches exactly what rev-list lists.
  const commits = b.commits();
  assert.ok(commits.length > 100, `${commits.length} bitmaps`);
  for (const c of commits) {
    assert.deepEqual(bitmapObjects(b, c), revListObjects([toHex(b.index.oid(c))], dir), `objects of ${toHex(b.index.oid(c))}`);
  }
  // Name hashes are git's pack_name_hash of the path the walk first met the object at.
  if (opts.hashCache === 'zeros') {
    for (let i = 0; i < b.count; i++) assert.equal(b.nameHash(i), 0);
  } else if (opts.hashCache) {
    const paths = gitPaths(dir);
    for (let i = 0; i < b.count; i++) {
      const oid = toHex(b.index.oid(i));
      assert.equal(b.nameHash(i), packNameHashOf(paths.get(oid) ?? ''), `name hash of ${oid} (${paths.get(oid)})`);
    }
  } else {
    assert.equal(b.nameHash(0), 0);
  }
  // The type bitmaps are stored exactly as our encoder writes them.
  let at = 32;
  for (const bits of [t.commits, t.trees, t.blobs, t.tags]) {
    const e = EwahBitmap.read(b.buf, at, b.buf.length, () => b.path);
    assert.deepEqual(Buffer.from(e.bytes()), encodeEwah(bits, bits.last() + 1));
    at += e.byteLength;
  }
}

/** Commits with their dates and parents, as `git log --all` reports them. */
function gitCommits(): { oid: string; date: number; merge: boolean }[] {
  return git(repo, ['log', '--all', '--format=%H %ct %P']).split('\n').filter(Boolean).map(l => {
    const [oid, date, ...parents] = l.split(' ');
    return { oid: oid!, date: Number(date), merge: parents.length > 1 };
  });
}

before(() => {
  repo = buildRepo(260);
});

after(() => {
  if (repo) rmrf(repo);
});

test('reads git\'s default bitmap (name-hash cache, no lookup table, no .rev)', () => {
  repack([]);
  assert.ok(!fs.existsSync(packFiles(repo).rev));
  const b = openBitmap();
  checkAgainstGit(b, { hashCache: true, lookupTable: false });
});

test('position() answers as the .idx does, from memory and after other ids took its slots', () => {
  repack([]);
  const b = openBitmap();
  const expected = Array.from({ length: b.count }, (_, i) => b.indexToPosition(i));
  const all = () => Array.from({ length: b.count }, (_, i) => b.position(Buffer.from(b.index.oid(i))));
  assert.deepEqual(all(), expected);
  assert.deepEqual(all(), expected, 'remembered');
  // An id that differs from a present one only past its first four bytes shares its slot.
  const present = Buffer.from(b.index.oid(0));
  const twin = Buffer.from(present);
  twin[19]! ^= 1;
  assert.equal(b.position(twin), -1);
  assert.equal(b.position(present), expected[0]);
  assert.equal(b.position(twin), -1);
  // Absent ids are remembered too; these take over every slot (chosen by bytes 2-3).
  const absent = Buffer.alloc(20);
  for (let k = 0; k < 70000; k++) {
    absent.writeUInt32BE(k, 0);
    absent.writeUInt32BE(k, 16);
    absent[0] = 0xff;
    if (b.index.find(absent) >= 0) continue;
    assert.equal(b.position(absent), -1);
  }
  assert.deepEqual(all(), expected, 'after the slots were taken over');
});

test('git\'s commit selection is ours: same commits, same (newest first) order', () => {
  repack(['pack.writeBitmapHashCache=false']);
  const b = openBitmap();
  checkAgainstGit(b, { hashCache: false, lookupTable: false });
  const commits = gitCommits();
  const chosen = selectBitmapCommits({ count: commits.length, date: i => commits[i]!.date, isMerge: i => commits[i]!.merge });
  assert.deepEqual(Array.from(b.commits(), c => toHex(b.index.oid(c))), Array.from(chosen, i => commits[i]!.oid));
  assert.ok(commits.length > 260 && chosen.length < 120, `${chosen.length} of ${commits.length} commits chosen`);
});

test('reads a bitmap with a lookup table and the pack order from a .rev file', () => {
  repack(['pack.writeBitmapLookupTable=true', 'pack.writeReverseIndex=true']);
  const f = packFiles(repo);
  assert.ok(fs.existsSync(f.rev));
  const index = PackIndex.load(f.idx);
  const fromRev = PackOrder.forIndex(index);
  const fromOffsets = PackOrder.fromOffsets(index);
  assert.deepEqual(fromRev.positionToIndex, fromOffsets.positionToIndex);
  // Found by search (a fresh order builds no inverse for a few lookups), then from the inverse.
  const searched = Array.from({ length: index.count }, (_, i) => PackOrder.forIndex(index).position(i));
  assert.deepEqual(searched, Array.from(fromOffsets.indexToPosition));
  assert.deepEqual(Array.from({ length: index.count }, (_, i) => fromRev.position(i)), searched);
  assert.deepEqual(fromRev.indexToPosition, fromOffsets.indexToPosition);
  const b = openBitmap();
  checkAgainstGit(b, { hashCache: true, lookupTable: true });
  assert.equal(b.bitmapFor(fromHex(git(repo, ['rev-parse', 'main~250']).trim())!), null, 'an old commit has no bitmap');
  assert.equal(b.bitmapFor(fromHex('0'.repeat(40))!), null);
});

test('refuses a .rev or .bitmap that is truncated, belongs to another pack, or lies', () => {
  repack(['pack.writeBitmapLookupTable=true', 'pack.writeReverseIndex=true']);
  const f = packFiles(repo);
  const index = PackIndex.load(f.idx);
  const rev = fs.readFileSync(f.rev);
  assert.throws(() => PackOrder.fromRev(rev.subarray(0, rev.length - 1), index, f.rev), /reverse index has/);
  const wrongPack = Buffer.from(rev); wrongPack[rev.length - 40] ^= 1;
  assert.throws(() => PackOrder.fromRev(wrongPack, index, f.rev), /belongs to another pack/);
  const repeated = Buffer.from(rev); repeated.copy(repeated, 16, 12, 16);
  assert.throws(() => PackOrder.fromRev(repeated, index, f.rev), /checksum mismatch|repeated/);

  // Checksummed right, so only the checks of the entries themselves can catch these.
  const resealed = (b: Buffer) => { sha1(b.subarray(0, b.length - 20)).copy(b, b.length - 20); return b; };
  const outOfRange = Buffer.from(rev); outOfRange.writeUInt32BE(index.count, 12); resealed(outOfRange);
  assert.throws(() => PackOrder.fromRev(outOfRange, index, f.rev, index), /entry 0 names index position \d+, out of range/);
  // One object named twice and another not at all: found when a position is looked up, by
  // search (the lazy order) or when the inverse is built.
  const twice = Buffer.from(rev);
  const missing = twice.readUInt32BE(16);
  twice.copy(twice, 16, 12, 16); resealed(twice);
  const lazy = PackOrder.fromRev(twice, index, f.rev, index);
  assert.throws(() => lazy.position(missing), /index position \d+ \(offset \d+\) is at no pack position/);
  assert.throws(() => lazy.indexToPosition, /out of range or repeated/);
  assert.throws(() => PackOrder.fromRev(twice, index, f.rev), /out of range or repeated/);

  const buf = fs.readFileSync(f.bitmap);
  const order = PackOrder.fromOffsets(index);
  const isCorrupt = (re: RegExp) => (e: unknown) => e instanceof CorruptError && re.test(e.message);
  assert.throws(() => PackBitmap.fromBuffer(buf.subarray(0, 40), f.bitmap, index, order), isCorrupt(/too short|truncated/));
  const other = Buffer.from(buf); other[20] ^= 1;
  assert.throws(() => PackBitmap.fromBuffer(other, f.bitmap, index, order), isCorrupt(/belongs to another pack/));
  const many = Buffer.from(buf); many.writeUInt32BE(0xffffffff, 8);
  assert.throws(() => PackBitmap.fromBuffer(many, f.bitmap, index, order), isCorrupt(/too short to hold 4294967295 entries/));
  const v2 = Buffer.from(buf); v2.writeUInt16BE(2, 4);
  assert.throws(() => PackBitmap.fromBuffer(v2, f.bitmap, index, order), isCorrupt(/unsupported bitmap version 2/));
  // A lookup-table row pointing at another commit's entry.
  const b = PackBitmap.fromBuffer(buf, f.bitmap, index, order);
  const tableAt = buf.length - 20 - 4 * index.count - 16 * b.entryCount;
  const swapped = Buffer.from(buf);
  buf.copy(swapped, tableAt + 4, tableAt + 16 + 4, tableAt + 16 + 12);
  const lying = PackBitmap.fromBuffer(swapped, f.bitmap, index, order);
  assert.throws(() => lying.bitmapForIndex(lying.commits()[0]!), isCorrupt(/points at the entry of another commit/));
  const flipped = Buffer.from(buf); flipped[buf.length - 21] ^= 0xff; // in the name-hash cache: parses fine
  assert.throws(() => PackBitmap.fromBuffer(flipped, f.bitmap, index, order).verifyChecksum(), isCorrupt(/checksum mismatch/));
  // Without a lookup table: an XOR offset reaching before the first entry.
  repack(['pack.writeBitmapHashCache=false']);
  const g = packFiles(repo);
  const plain = fs.readFileSync(g.bitmap);
  const gi = PackIndex.load(g.idx);
  let at = 32;
  for (let k = 0; k < 4; k++) at += EwahBitmap.read(plain, at, plain.length, () => '').byteLength;
  const badXor = Buffer.from(plain); badXor[at + 4] = 1;
  const bx = PackBitmap.fromBuffer(badXor, g.bitmap, gi, PackOrder.fromOffsets(gi));
  assert.throws(() => bx.bitmapForIndex(bx.commits()[0]!), isCorrupt(/XOR offset 1/));
});

test('reads a multi-pack-index bitmap: pseudo-pack order from the RIDX chunk, objects from several packs', () => {
  const mp = buildRepo(200, 3);
  try {
    const pdir = path.join(mp, 'objects', 'pack');
    const packs = fs.readdirSync(pdir).filter(f => f.endsWith('.pack'));
    assert.ok(packs.length >= 3, `${packs.length} packs`);
    // GIT_TEST_MIDX_WRITE_REV also leaves the older multi-pack-index-<checksum>.rev beside it.
    git(mp, ['multi-pack-index', 'write', '--bitmap'], undefined, { ...GIT_ENV, GIT_TEST_MIDX_WRITE_REV: '1' });
    const b = PackBitmap.openMultiPack(pdir);
    assert.ok(b, 'git wrote a multi-pack-index bitmap');
    checkAgainstGit(b, { hashCache: 'zeros', lookupTable: false }, mp);
    // Each position's object sits at the offset the multi-pack-index says, in the pack it names.
    const midx = b.index as MultiPackIndex;
    assert.deepEqual([...midx.packNames].sort(), packs.map(p => p.replace(/\.pack$/, '.idx')).sort());
    const rev = path.join(pdir, `multi-pack-index-${toHex(midx.packChecksum())}.rev`);
    assert.deepEqual(PackOrder.fromRev(fs.readFileSync(rev), midx, rev).positionToIndex, midx.order().positionToIndex);
    const idx = midx.packNames.map(n => PackIndex.load(path.join(pdir, n)));
    for (let i = 0; i < midx.count; i++) {
      const pack = idx[midx.packOf(i)]!;
      assert.equal(pack.offset(pack.find(midx.oid(i))), midx.offset(i));
    }
  } finally {
    rmrf(mp);
  }
});

test('pack types from entry headers: OFS deltas, REF deltas, and bases appended after their deltas', () => {
  repack([]);
  const f = packFiles(repo);
  const index = PackIndex.load(f.idx);
  const order = PackOrder.forIndex(index);
  const file = new PackFile(f.pack, index);
  const b = openBitmap();
  try {
    const types = readPackTypes(file, index, order);
    for (let pos = 0; pos < index.count; pos++) assert.equal(types[pos], b.typeAt(pos));
  } finally {
    file.close();
  }
  // A thin pack (REF_DELTA, no offsets) completed by index-pack --fix-thin, which appends the
  // missing bases at the end: some deltas then precede their bases.
  const dir = tmpDir('tsgit-bitmap-thin-');
  try {
    const thin = gitBuf(repo, ['pack-objects', '--thin', '--stdout', '--revs', '-q'], 'main\n^main~20\n');
    git(repo, ['index-pack', '--fix-thin', '--stdin', path.join(dir, 'thin.pack')], thin);
    const ti = PackIndex.load(path.join(dir, 'thin.idx'));
    const tf = new PackFile(path.join(dir, 'thin.pack'), ti);
    try {
      const tOrder = PackOrder.fromOffsets(ti);
      const types = readPackTypes(tf, ti, tOrder);
      const ids = Array.from({ length: ti.count }, (_, pos) => toHex(ti.oid(tOrder.positionToIndex[pos]!)));
      const theirs = git(repo, ['cat-file', '--batch-check=%(objecttype)'], ids.join('\n') + '\n').split('\n').filter(Boolean);
      assert.deepEqual(Array.from(types, t => typeName(t)), theirs);
      // verify-pack -v lines: id type size size-in-pack offset [depth base-id]
      const rows = git(repo, ['verify-pack', '-v', path.join(dir, 'thin.idx')]).split('\n')
        .map(l => l.split(/\s+/)).filter(r => r.length >= 5 && /^[0-9a-f]{40}$/.test(r[0]!));
      const offsetOf = new Map(rows.map(r => [r[0]!, Number(r[4])]));
      assert.ok(rows.some(r => r.length === 7 && offsetOf.get(r[6]!)! > Number(r[4])), 'some delta precedes its base');
    } finally {
      tf.close();
    }
  } finally {
    rmrf(dir);
  }
});

/** Name hashes from our object walk over all refs, in index order (what repack will store). */
function walkNameHashes(odb: ObjectDatabase, index: PackIndex): { hashes: Uint32Array; objects: string[] } {
  const walk = new ObjectWalk(odb);
  for (const l of git(repo, ['for-each-ref', '--format=%(objectname) %(refname)']).split('\n')) {
    if (l) walk.add(fromHex(l.slice(0, 40))!, l.slice(41));
  }
  const hashes = new Uint32Array(index.count);
  const objects: string[] = [];
  walk.enumerate({
    commit: (ids, off) => { objects.push(toHex(ids, off)); },
    object: (_type, ids, off, p, len) => {
      objects.push(toHex(ids, off));
      const i = index.find(ids, off);
      assert.ok(i >= 0, `walked object ${toHex(ids, off)} is in the pack`);
      hashes[i] = packNameHash(p, 0, len);
    },
  });
  return { hashes, objects: objects.sort() };
}

function testBitmap(commit: string): { status: number | null; stderr: string } {
  const r = spawnSync('git', ['rev-list', '--test-bitmap', commit], { cwd: repo, env: GIT_ENV });
  return { status: r.status, stderr: r.stderr.toString() };
}

function buildOurs(odb: ObjectDatabase, handle: StoredPack, opts: { nameHashes?: Uint32Array; lookupTable?: boolean }): Buffer {
  return buildPackBitmap({ pack: handle, read: (b, o) => odb.read(b, o), ...opts });
}

test('git reads the bitmaps we write: --test-bitmap passes, --use-bitmap-index lists what the walk lists', () => {
  repack([]);
  const f = packFiles(repo);
  const gitBitmap = openBitmap();
  const gitBytes = fs.readFileSync(f.bitmap);
  const odb = new ObjectDatabase(path.join(repo, 'objects'));
  try {
    const handle = odb.packs[0]!;
    const { hashes, objects } = walkNameHashes(odb, handle.index);
    assert.deepEqual(objects, revListObjects(['--all']), 'the object walk lists what git lists');
    for (let i = 0; i < handle.index.count; i++) {
      assert.equal(hashes[i], gitBitmap.nameHash(i), `our walk's name hash for ${toHex(handle.index.oid(i))}`);
    }
    for (const lookupTable of [false, true]) {
      const ours = buildOurs(odb, handle, { nameHashes: hashes, lookupTable });
      if (!lookupTable) assert.deepEqual(ours, gitBytes, 'the same bytes git wrote');
      fs.rmSync(f.bitmap, { force: true });
      writeBitmapFile(f.bitmap, ours);
      const mine = openBitmap();
      assert.equal(mine.hasLookupTable, lookupTable);
      mine.verifyChecksum();
      assert.deepEqual(Array.from(mine.commits()).sort(), Array.from(gitBitmap.commits()).sort(), 'same commits as git chose');
      for (const c of gitBitmap.commits()) {
        assert.ok(mine.bitmapForIndex(c)!.equals(gitBitmap.bitmapForIndex(c)!), `bitmap of ${toHex(handle.index.oid(c))}`);
      }
      for (let i = 0; i < handle.index.count; i++) assert.equal(mine.nameHash(i), gitBitmap.nameHash(i));
      const tips = [
        git(repo, ['rev-parse', 'main']).trim(),
        git(repo, ['rev-parse', 'main~40']).trim(), // a merge
        toHex(handle.index.oid(mine.commits()[lookupTable ? 0 : mine.entryCount - 1]!)),
      ];
      for (const tip of tips) {
        const r = testBitmap(tip);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stderr, /Found bitmap for '[0-9a-f]{40}'/);
        assert.match(r.stderr, /OK!/);
      }
      const viaBitmap = git(repo, ['rev-list', '--use-bitmap-index', '--objects', '--all']).split('\n').filter(Boolean).map(l => l.slice(0, 40)).sort();
      assert.deepEqual(viaBitmap, objects);
      const counted = git(repo, ['rev-list', '--use-bitmap-index', '--count', '--all']).trim();
      assert.equal(counted, git(repo, ['rev-list', '--count', '--all']).trim());
    }
  } finally {
    odb.close();
  }
});

test('a bitmap we write for a small linear pack is byte for byte git\'s', () => {
  const dir = tmpDir('tsgit-bitmap-linear-');
  try {
    git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
    const lines: string[] = [];
    for (let i = 1; i <= 40; i++) {
      const body = `line ${i}\n`.repeat(i);
      lines.push('commit refs/heads/main', `mark :${i}`, `committer C O Mitter <c@example.com> ${1700000000 + i} +0000`,
        'data 2', `c${i % 10}`, ...(i > 1 ? [`from :${i - 1}`] : []),
        `M 100644 inline a/b${i % 3}/file.txt`, `data ${body.length}`, body);
    }
    lines.push('');
    git(dir, ['fast-import', '--quiet'], lines.join('\n'));
    for (const lookupTable of [false, true]) {
      git(dir, ['-c', 'pack.writeBitmapHashCache=false', '-c', `pack.writeBitmapLookupTable=${lookupTable}`, 'repack', '-adbq']);
      const odb = new ObjectDatabase(path.join(dir, 'objects'));
      try {
        const handle = odb.packs[0]!;
        const theirs = fs.readFileSync(handle.file.path.replace(/\.pack$/, '.bitmap'));
        assert.deepEqual(buildOurs(odb, handle, { lookupTable }), theirs);
      } finally {
        odb.close();
      }
    }
  } finally {
    rmrf(dir);
  }
});

test('reachability refuses a pack that is not closed, naming the missing object', () => {
  const dir = tmpDir('tsgit-bitmap-open-');
  try {
    // A pack holding only what main~5..main adds: its oldest commits' parents are elsewhere.
    const list = git(repo, ['rev-list', '--objects', 'main~5..main']);
    fs.mkdirSync(path.join(dir, 'pack'));
    const name = git(repo, ['pack-objects', '-q', path.join(dir, 'pack', 'pack')], list).trim();
    const index = PackIndex.load(path.join(dir, 'pack', `pack-${name}.idx`));
    const odb = new ObjectDatabase(path.join(repo, 'objects'));
    try {
      const reach = new PackReachability(index, PackOrder.fromOffsets(index), (b, o) => odb.read(b, o));
      const head = index.find(fromHex(git(repo, ['rev-parse', 'main']).trim())!);
      assert.throws(() => reach.reachable([reach.order.indexToPosition[head]!]),
        (e: unknown) => e instanceof GitError && e.code === 'incomplete' && /is not in the pack/.test(e.message));
    } finally {
      odb.close();
    }
  } finally {
    rmrf(dir);
  }
});
