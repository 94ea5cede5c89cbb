// The pack writer against git: what it writes must be accepted by `git index-pack` (every id and
// the trailer checked) and hold exactly the objects asked for. Stored entries are reused (whole
// objects and deltas, across pack windows), REF_DELTA becomes OFS_DELTA when allowed and the
// other way round when not, loose objects are compressed, a thin pack names bases the receiver
// has, and the order is git's: commits, then trees, then blobs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fromHex, OID_BYTES } from '../src/core/oid.js';
import { EntryHeader } from '../src/pack/entry-header.js';
import { MAX_ENTRY_HEADER, writeEntryHeader } from '../src/pack/entry-header-encode.js';
import { writeOrder } from '../src/packing/write/order.js';
import { writePack, type PackContents, type PackWriteOptions } from '../src/packing/write/write.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { OidMap } from '../src/walk/oid-map.js';
import { makeEditedFilesRepo } from './edited-files-repo.js';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';

let repo: string;
let work: string;

/** Twelve 400 KiB files of random lines edited over 12 commits: a pack of a few MiB full of deltas. */
before(() => {
  work = tmpDir('tsgit-pack-write-');
  repo = path.join(work, 'repo.git');
  const rand = (n: number, seed: string) => {
    const lines: string[] = [];
    let h = crypto.createHash('sha256').update(seed).digest();
    for (let i = 0; i < n; i++) {
      h = crypto.createHash('sha256').update(h).digest();
      lines.push(h.toString('base64') + h.toString('hex'));
    }
    return lines;
  };
  const files = Array.from({ length: 12 }, (_, f) => rand(4000, `file ${f}`));
  makeEditedFilesRepo(repo, files, 12, (c, f, lines) => {
    if ((c + f) % 3 !== 0) return false;
    lines.splice((c * 97 + f * 31) % lines.length, 5, ...rand(3, `edit ${c} ${f}`));
    return true;
  }, f => `dir${f % 2}/f${f}.txt`);
  git(repo, ['tag', '-a', '-m', 'tag', 'v1', 'main~3']);
  git(repo, ['repack', '-adfq', '--window=10', '--depth=20']);
});

after(() => rmrf(work));

/** The objects of `rev-list --objects <args>` as pack contents, in git's write order. */
function contentsOf(dir: string, args: string[]): { contents: PackContents; hexes: string[] } {
  const hexes = git(dir, ['rev-list', '--objects', ...args]).split('\n').filter(Boolean).map(l => l.slice(0, 40));
  const types = git(dir, ['cat-file', '--batch-check=%(objecttype)'], hexes.join('\n') + '\n').split('\n');
  const code: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
  const ids = new OidMap(hexes.length);
  const enumerated = new Int32Array(hexes.length);
  hexes.forEach((h, i) => { enumerated[i] = ~ids.addOrGet(fromHex(h)!); });
  // git's tagged objects: what refs/tags point at, and what those peel to.
  const tagged = new Set(git(dir, ['for-each-ref', '--format=%(objectname) %(*objectname)', 'refs/tags']).split(/\s+/).filter(Boolean)
    .map(h => ids.get(fromHex(h)!)).filter(i => i >= 0));
  const { order, restFrom } = writeOrder(enumerated, i => code[types[i]!]!, i => tagged.has(i));
  return { contents: { ids, order, storageOrderFrom: restFrom }, hexes };
}

async function packOf(dir: string, contents: PackContents, opts: Partial<PackWriteOptions> = {}): Promise<Buffer> {
  const odb = new ObjectDatabase(path.join(dir, 'objects'));
  const chunks: Buffer[] = [];
  try {
    const stats = await writePack(odb, contents, c => { chunks.push(Buffer.from(c)); }, { ofsDelta: true, thin: false, ...opts });
    const pack = Buffer.concat(chunks);
    assert.equal(stats.bytes, pack.length);
    assert.deepEqual(stats.checksum, pack.subarray(pack.length - 20));
    assert.equal(stats.total, contents.order.length);
    return pack;
  } finally {
    odb.close();
  }
}

/** Indexes the pack with git into a fresh repository; returns `git verify-pack -v` lines. */
function gitIndex(pack: Buffer, extra: string[] = [], objectsFrom?: string): { ids: string[]; verbose: string[]; stderr: string } {
  const dst = fs.mkdtempSync(path.join(work, 'recv-'));
  git(dst, ['init', '-q', '--bare', '.']);
  if (objectsFrom) fs.writeFileSync(path.join(dst, 'objects', 'info', 'alternates'), path.join(objectsFrom, 'objects') + '\n');
  const r = spawnSync('git', ['index-pack', '--stdin', '-v', ...extra], { cwd: dst, input: pack, env: GIT_ENV });
  assert.equal(r.status, 0, r.stderr.toString());
  const idx = fs.readdirSync(path.join(dst, 'objects', 'pack')).find(f => f.endsWith('.idx'))!;
  const verbose = git(dst, ['verify-pack', '-v', path.join('objects', 'pack', idx)]).split('\n').filter(l => /^[0-9a-f]{40} /.test(l));
  return { ids: verbose.map(l => l.slice(0, 40)).sort(), verbose, stderr: r.stderr.toString() };
}

test('entry headers round-trip through the pack reader', () => {
  const out = Buffer.alloc(MAX_ENTRY_HEADER + 8);
  const h = new EntryHeader();
  for (const size of [0, 1, 15, 16, 127, 128, 2047, 2048, 1 << 20, 2 ** 32 + 5, 2 ** 40 + 123]) {
    for (const type of [1, 2, 3, 4]) {
      const n = writeEntryHeader(out, type, size);
      assert.ok(h.parse(out, 0, n, 0, 'pack', 't'));
      assert.deepEqual([h.type, h.size, h.dataPos], [type, size, n]);
    }
    for (const distance of [1, 127, 128, 16511, 16512, 2 ** 21, 2 ** 35 + 7]) {
      const at = distance + 10;
      const n = writeEntryHeader(out, 6, size, { distance });
      assert.ok(h.parse(out, 0, n, at, 'pack', 't'));
      assert.deepEqual([h.type, h.size, h.baseOffset, h.dataPos], [6, size, at - distance, n]);
    }
    const id = crypto.randomBytes(20);
    const n = writeEntryHeader(out, 7, size, { ids: id, offset: 0 });
    assert.ok(h.parse(out, 0, n, 0, 'pack', 't'));
    assert.deepEqual(out.subarray(h.baseOidPos, h.baseOidPos + OID_BYTES), id);
  }
});

test('a full pack reuses stored entries and deltas across windows, and git indexes it', async () => {
  const { contents, hexes } = contentsOf(repo, ['--all']);
  const pack = await packOf(repo, contents);
  assert.ok(pack.length > 3 << 20, `pack of ${pack.length} bytes spans several 1 MiB windows`);
  const { ids, verbose } = gitIndex(pack);
  assert.deepEqual(ids, [...hexes].sort());
  const deltas = verbose.filter(l => l.split(/\s+/).length > 5);
  assert.ok(deltas.length > 10, 'stored deltas were reused');
  // git's order (the tag points at a commit): every commit and the tag, then trees, then blobs.
  const byOffset = verbose.map(l => l.split(/\s+/)).sort((a, b) => Number(a[4]) - Number(b[4]));
  const types = byOffset.map(f => f[1]);
  const firstTree = types.indexOf('tree'), firstBlob = types.indexOf('blob');
  assert.ok(Math.max(types.lastIndexOf('commit'), types.indexOf('tag')) < firstTree && types.lastIndexOf('tree') < firstBlob, types.join(' '));
});

test('without ofs-delta every delta names its base by id', async () => {
  const { contents, hexes } = contentsOf(repo, ['--all']);
  const pack = await packOf(repo, contents, { ofsDelta: false });
  assert.deepEqual(gitIndex(pack).ids, [...hexes].sort());
  // Walk every entry: none may be an OFS_DELTA (type 6).
  const h = new EntryHeader();
  const seen = new Set<number>();
  let off = 12;
  for (let i = 0; i < hexes.length; i++) {
    h.parse(pack, off, pack.length, off, 'pack', 'test');
    seen.add(h.type);
    const r = zlib.inflateSync(pack.subarray(h.dataPos), { info: true }) as unknown as { engine: { bytesWritten: number } };
    off = h.dataPos + r.engine.bytesWritten;
  }
  assert.equal(off, pack.length - 20);
  assert.ok(seen.has(7) && !seen.has(6), [...seen].join(','));
});

test('stored REF_DELTAs become OFS_DELTAs for a receiver that takes them', async () => {
  const refRepo = path.join(work, 'ref-delta.git');
  git(work, ['clone', '-q', '--bare', repo, refRepo]);
  git(refRepo, ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-adfq']);
  const stored = fs.readFileSync(path.join(refRepo, 'objects', 'pack', fs.readdirSync(path.join(refRepo, 'objects', 'pack')).find(f => f.endsWith('.pack'))!));
  const { contents, hexes } = contentsOf(refRepo, ['--all']);
  const pack = await packOf(refRepo, contents);
  assert.deepEqual(gitIndex(pack).ids, [...hexes].sort());
  // REF_DELTA carries 20 bytes of id per delta, OFS_DELTA a few: the converted pack is smaller.
  assert.ok(pack.length < stored.length, `${pack.length} < ${stored.length}`);
});

test('loose objects are compressed; a thin pack names bases the receiver has', async () => {
  const thin = path.join(work, 'thin.git');
  git(work, ['clone', '-q', '--bare', repo, thin]);
  const old = git(thin, ['rev-parse', 'main']).trim();
  // A new commit editing one big file, left loose.
  const big = git(thin, ['cat-file', 'blob', 'main:dir0/f0.txt']);
  const blob = git(thin, ['hash-object', '-w', '--stdin'], big.replace(/^.*\n/, 'changed first line\n')).trim();
  const tree = git(thin, ['mktree'], git(thin, ['ls-tree', 'main']).replace(/^(040000 tree )\S+(\tdir0)$/m, (_m, a, b) =>
    `${a}${git(thin, ['mktree'], git(thin, ['ls-tree', 'main:dir0']).replace(/^(100644 blob )\S+(\tf0\.txt)$/m, `$1${blob}$2`)).trim()}${b}`)).trim();
  const commit = git(thin, ['commit-tree', tree, '-p', old, '-m', 'edit']).trim();
  git(thin, ['update-ref', 'refs/heads/main', commit]);
  const { contents, hexes } = contentsOf(thin, ['main', '--not', old]);
  assert.equal(hexes.length, 4);
  const loosePack = await packOf(thin, contents);
  assert.deepEqual(gitIndex(loosePack).ids, [...hexes].sort());
  // Packed, the new blob is stored as a delta of the old one, which the receiver has.
  git(thin, ['repack', '-adfq']);
  const oldBlob = git(thin, ['rev-parse', `${old}:dir0/f0.txt`]).trim();
  const { contents: c2 } = contentsOf(thin, ['main', '--not', old]);
  const oldIdx = ~c2.ids.addOrGet(fromHex(oldBlob)!);
  const thinPack = await packOf(thin, { ...c2, receiverHas: i => i === oldIdx }, { thin: true });
  assert.ok(thinPack.length < 4096, `thin pack of ${thinPack.length} bytes`);
  const r = gitIndex(thinPack, ['--fix-thin'], repo);
  assert.match(r.stderr, /completed with 1 local object/);
  // Without thin, the same objects come whole.
  const fat = await packOf(thin, c2, { thin: false });
  assert.ok(fat.length > 100_000);
});

test('git\'s write order: recency up to the first tagged object, tagged ones, commits and tags, trees, the rest', () => {
  // Objects 0..7 in enumeration order; types and tags chosen to exercise each pass.
  const types = [1, 1, 1, 4, 2, 3, 2, 3];
  const tagged = new Set([2, 3]);
  const { order, restFrom } = writeOrder(Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), i => types[i]!, i => tagged.has(i));
  assert.deepEqual([...order], [0, 1, 2, 3, 4, 6, 5, 7]);
  assert.equal(restFrom, 6);
});

test('a delta whose entry header straddles a 1 MiB pack window is copied whole', async () => {
  // A hand-made pack: a stored (uncompressed) blob sized so the next entry starts 2 bytes before
  // 1 MiB, then an OFS_DELTA of it whose header crosses that boundary.
  const dir = path.join(work, 'straddle.git');
  fs.mkdirSync(dir);
  git(dir, ['init', '-q', '--bare', '.']);
  const header = (type: number, size: number, extra?: { distance: number }) => {
    const b = Buffer.alloc(MAX_ENTRY_HEADER);
    return b.subarray(0, writeEntryHeader(b, type, size, extra));
  };
  const target = (1 << 20) - 2;
  let size = target - 12 - 200;
  let blob: Buffer, entry: Buffer;
  for (;;) {
    blob = Buffer.alloc(size, 0x61);
    entry = Buffer.concat([header(3, size), zlib.deflateSync(blob, { level: 0 })]);
    if (12 + entry.length === target) break;
    size += target - 12 - entry.length;
  }
  const varint = (n: number) => { const out: number[] = []; do { let c = n & 0x7f; n = Math.floor(n / 128); if (n) c |= 0x80; out.push(c); } while (n); return out; };
  const tail = Buffer.from('tail\n');
  const delta = Buffer.from([...varint(size), ...varint(size + tail.length),
    0x80 | 0x10 | 0x20 | 0x40, size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff, tail.length, ...tail]);
  const deltaEntry = Buffer.concat([header(6, delta.length, { distance: target - 12 }), zlib.deflateSync(delta)]);
  const head = Buffer.from('PACK\0\0\0\x02\0\0\0\x02', 'latin1');
  const body = Buffer.concat([head, entry, deltaEntry]);
  const pack = Buffer.concat([body, crypto.createHash('sha1').update(body).digest()]);
  const r = spawnSync('git', ['index-pack', '--stdin', '--keep'], { cwd: dir, input: pack, env: GIT_ENV });
  assert.equal(r.status, 0, r.stderr.toString());
  const blobId = git(dir, ['hash-object', '--stdin'], blob).trim();
  const deltaId = git(dir, ['hash-object', '--stdin'], Buffer.concat([blob, tail])).trim();
  const ids = new OidMap(4);
  const order = Int32Array.from([~ids.addOrGet(fromHex(blobId)!), ~ids.addOrGet(fromHex(deltaId)!)]);
  for (const ofsDelta of [true, false]) {
    const out = await packOf(dir, { ids, order }, { ofsDelta });
    assert.deepEqual(gitIndex(out).ids, [blobId, deltaId].sort());
  }
});

test('with name hashes, loose objects are diffed against each other, and the caller hears between them', async () => {
  const dir = path.join(work, 'loose-versions.git');
  git(work, ['init', '-q', '--bare', dir]);
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} of a file that is edited a little from version to version`);
  const hexes: string[] = [];
  for (let v = 0; v < 4; v++) {
    lines[v * 500] = `line ${v * 500} edited in version ${v}`;
    hexes.push(git(dir, ['hash-object', '-w', '--stdin'], lines.join('\n')).trim());
  }
  const ids = new OidMap(hexes.length);
  const order = Int32Array.from(hexes, (h) => ~ids.addOrGet(fromHex(h)!));
  let quiet = 0;
  const contents: PackContents = { ids, order, nameHash: () => 0x1234 };
  // Without ofs-delta, each searched delta names its base by id.
  const packs: Buffer[] = [];
  for (const ofsDelta of [true, false]) {
    const odb = new ObjectDatabase(path.join(dir, 'objects'));
    const chunks: Buffer[] = [];
    try {
      const stats = await writePack(odb, contents, (c) => { chunks.push(Buffer.from(c)); }, { ofsDelta, thin: false, quiet: () => { quiet++; } });
      assert.equal(stats.deltas, 3);
    } finally {
      odb.close();
    }
    packs.push(Buffer.concat(chunks));
    const { ids: indexed, verbose } = gitIndex(packs[packs.length - 1]!);
    assert.deepEqual(indexed, [...hexes].sort());
    assert.equal(verbose.filter((l) => / blob +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l)).length, 3);
  }
  assert.ok(quiet >= 8, `quiet() called ${quiet} times`);
  const pack = packs[0]!;
  // Without name hashes, as before: each version whole, one compressed version for each.
  const whole = await packOf(dir, { ids, order });
  assert.ok(pack.length < whole.length / 3, `${pack.length} bytes against ${whole.length} whole`);
});
