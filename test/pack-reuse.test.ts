// Verbatim pack reuse against git: a pack written from a bitmapped pack's stored bytes (PackReuse)
// followed by the ordinary writer's objects must be accepted by `git index-pack` and hold exactly
// the objects asked for. Taking every object reproduces the pack byte for byte; leaving gaps
// keeps deltas whose base is sent (with their OFS_DELTA distances shortened across the gaps) and
// hands the others to the writer; without ofs-delta, reused deltas name their bases by id. A slow
// receiver never has more than one wait outstanding.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../src/object/type.js';
import { Bitset } from '../src/pack/bitmap/bitset.js';
import { EntryHeader } from '../src/pack/entry-header.js';
import { PackLayout } from '../src/packing/write/pack-layout.js';
import { PackReuse } from '../src/packing/write/reuse.js';
import { writePack, type PackWriteStats } from '../src/packing/write/write.js';
import { ObjectDatabase } from '../src/odb/database.js';
import type { StoredPack } from '../src/odb/object-store.js';
import { OidMap } from '../src/walk/oid-map.js';
import { makeEditedFilesRepo } from './edited-files-repo.js';
import { git, rmrf, tmpDir } from './helpers.js';

let work: string;
let repo: string;
let odb: ObjectDatabase;
let pack: StoredPack;
let layout: PackLayout;
/** Per pack position: entry type as stored, and the base's position for deltas (-1 otherwise). */
let storedType: Uint8Array;
let basePos: Int32Array;

/** Ten files of random lines edited over 30 commits, packed with deep OFS_DELTA chains and a bitmap. */
before(() => {
  work = tmpDir('tsgit-pack-reuse-');
  repo = path.join(work, 'repo.git');
  let h = crypto.createHash('sha256').update('seed').digest();
  const line = () => { h = crypto.createHash('sha256').update(h).digest(); return h.toString('hex'); };
  const files = Array.from({ length: 10 }, () => Array.from({ length: 300 }, line));
  makeEditedFilesRepo(repo, files, 30, (c, f, lines) => {
    if ((c + f) % 2 !== 0) return false;
    lines.splice((c * 37 + f * 11) % 300, 2, line(), line());
    return true;
  }, f => `d${f % 3}/f${f}.txt`);
  git(repo, ['repack', '-adfbq', '--window=10', '--depth=50']);
  odb = new ObjectDatabase(path.join(repo, 'objects'));
  pack = odb.packs[0]!;
  layout = PackLayout.of(pack);
  storedType = new Uint8Array(layout.count);
  basePos = new Int32Array(layout.count).fill(-1);
  const header = new EntryHeader();
  for (let pos = 0; pos < layout.count; pos++) {
    const v = pack.file.read(layout.offset(pos), 32);
    header.parse(v.buf, v.pos, v.end, layout.offset(pos), 'pack', pack.file.path);
    storedType[pos] = header.type;
    if (header.type === OBJ_OFS_DELTA) basePos[pos] = layout.positionOf(header.baseOffset);
    else if (header.type === OBJ_REF_DELTA) basePos[pos] = layout.order.indexToPosition[pack.index.find(v.buf, header.baseOidPos)]!;
  }
});

after(() => {
  odb.close();
  rmrf(work);
});

function hexAt(pos: number): string {
  return pack.index.oid(layout.order.positionToIndex[pos]!).toString('hex');
}

/** Writes the wanted positions: reused ones verbatim, the rest through the ordinary writer. */
async function writeWanted(wanted: Bitset, ofsDelta: boolean, sink?: (chunk: Buffer) => void | Promise<void>):
  Promise<{ bytes: Buffer; stats: PackWriteStats; reuse: PackReuse }> {
  const reuse = PackReuse.select(layout, wanted, { ofsDelta });
  const rest = reuse.rest(wanted);
  const ids = new OidMap(1024);
  const positions = new Int32Array(layout.count);
  const order: number[] = [];
  rest.forEach(pos => {
    const idx = ~ids.addOrGet(pack.index.buf, pack.index.oidAt(layout.order.positionToIndex[pos]!));
    positions[idx] = pos;
    order.push(idx);
  });
  const chunks: Buffer[] = [];
  const stats = await writePack(odb, { ids, order: Int32Array.from(order), stored: { layout, positions } }, chunk => {
    chunks.push(Buffer.from(chunk));
    return sink?.(chunk);
  }, { ofsDelta, thin: false, prefix: reuse });
  return { bytes: Buffer.concat(chunks), stats, reuse };
}

/** Indexes a pack with git; returns each object's id and its entry type as written. */
function indexWithGit(bytes: Buffer, name: string): Map<string, number> {
  const file = path.join(work, `${name}.pack`);
  fs.writeFileSync(file, bytes);
  git(work, ['index-pack', '-o', path.join(work, `${name}.idx`), file]);
  const out = new Map<string, number>();
  for (const line of git(work, ['show-index'], fs.readFileSync(path.join(work, `${name}.idx`))).split('\n').filter(Boolean)) {
    const [offset, hex] = line.split(' ');
    out.set(hex!, (bytes[Number(offset)]! >> 4) & 7);
  }
  return out;
}

function allPositions(): Bitset {
  const b = new Bitset(layout.count);
  for (let pos = 0; pos < layout.count; pos++) b.add(pos);
  return b;
}

test('taking every object copies the pack byte for byte', async () => {
  const { bytes, stats, reuse } = await writeWanted(allPositions(), true);
  assert.equal(reuse.count, layout.count);
  assert.equal(stats.packReused, layout.count);
  assert.equal(stats.total, layout.count);
  assert.ok(bytes.equals(fs.readFileSync(pack.file.path)), 'output differs from the stored pack');
});

test('gaps: deltas whose base is left out go to the writer; distances across gaps are rewritten', async () => {
  // Leave out every 5th whole object that some delta uses as its base, and a few deltas.
  const wanted = allPositions();
  const gaps = new Set<number>();
  let k = 0;
  for (let pos = 0; pos < layout.count; pos++) {
    const isBase = basePos.includes(pos);
    if ((isBase && storedType[pos]! < 5 && k++ % 5 === 0) || (storedType[pos] === OBJ_OFS_DELTA && pos % 11 === 0)) gaps.add(pos);
  }
  for (const pos of gaps) wanted.words[pos >>> 5]! &= ~(1 << (pos & 31));
  const { bytes, stats, reuse } = await writeWanted(wanted, true);

  const orphans: number[] = [], acrossGap: number[] = [];
  for (let pos = 0; pos < layout.count; pos++) {
    if (!wanted.has(pos) || basePos[pos]! < 0) continue;
    let chainBroken = false;
    for (let b = basePos[pos]!; b >= 0; b = basePos[b]!) if (gaps.has(b)) chainBroken = true;
    if (chainBroken) orphans.push(pos);
    else if ([...gaps].some(g => g > basePos[pos]! && g < pos)) acrossGap.push(pos);
  }
  assert.ok(orphans.length > 0 && acrossGap.length > 0, 'the test pack has no delta of each kind');
  for (const pos of orphans) assert.ok(!reuse.reused.has(pos), `delta at ${pos} reused though its base chain is not sent`);
  for (const pos of acrossGap) assert.ok(reuse.reused.has(pos), `delta at ${pos} not reused though its base is`);
  assert.equal(stats.packReused, layout.count - gaps.size - orphans.length);
  assert.equal(stats.total, layout.count - gaps.size);

  const written = indexWithGit(bytes, 'gaps');
  const expected = new Set<string>();
  wanted.forEach(pos => expected.add(hexAt(pos)));
  assert.deepEqual(new Set(written.keys()), expected);
  // Deltas across a gap are still deltas (with a new distance), not whole objects.
  for (const pos of acrossGap) assert.equal(written.get(hexAt(pos)), OBJ_OFS_DELTA, `object at position ${pos}`);
});

test('without ofs-delta, reused deltas name their base by id', async () => {
  const wanted = allPositions();
  for (let pos = 3; pos < layout.count; pos += 7) wanted.words[pos >>> 5]! &= ~(1 << (pos & 31));
  const { bytes, reuse } = await writeWanted(wanted, false);
  assert.ok(reuse.count > 0);
  const written = indexWithGit(bytes, 'refs');
  assert.equal(written.size, wanted.count());
  const types = new Set(written.values());
  assert.ok(!types.has(OBJ_OFS_DELTA), 'an OFS_DELTA was written for a receiver without ofs-delta');
  assert.ok(types.has(OBJ_REF_DELTA));
});

test('a slow receiver: one wait at a time, and the copy resumes after each', async () => {
  let outstanding = 0, most = 0, waits = 0;
  const { bytes } = await writeWanted(allPositions(), true, () => {
    waits++;
    outstanding++;
    most = Math.max(most, outstanding);
    return new Promise<void>(resolve => setImmediate(() => { outstanding--; resolve(); }));
  });
  assert.ok(waits > 1, 'the pack fit one chunk: the test says nothing');
  assert.equal(most, 1);
  assert.ok(bytes.equals(fs.readFileSync(pack.file.path)));
});
