// Deltas resolved while the pack arrives (src/packing/index-pack/stream-resolve.ts). Whatever the
// first pass resolves and whatever it leaves to the second, the .idx is git's own; a delta whose
// base has left the stream resolver's rings is rebuilt from the pack file along its chain; and a
// broken or hostile delta in the middle of a pack is reported exactly as when nothing is resolved
// early. The packs are built by hand (pack-builder.ts), with more objects than index-pack's thread
// threshold so that the stream resolver runs, and small enough that its ring never turns one away
// (so what it resolves is certain, not a matter of timing).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { indexPack } from '../src/packing/index-pack/index.js';
import { deltaOf, objectId, writePack, type RawEntry } from './pack-builder.js';
import { git, rmrf, tmpDir } from './helpers.js';

const TREE = 2, BLOB = 3, OFS = 6, REF = 7;
const FAMILIES = 600, LEVELS = 4;

/** Deterministic bytes: the same pack every run. */
function bytes(seed: string, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0, k = 0; i < n; k++) crypto.createHash('sha1').update(`${seed}/${k}`).digest().copy(out, i, 0, Math.min(20, n - i)), i += 20;
  return out;
}

interface Family { base: Buffer; levels: Buffer[] }

/** Blob families: a base and a chain of LEVELS deltas, each its predecessor and eight bytes more. */
function families(): Family[] {
  return Array.from({ length: FAMILIES }, (_, f) => {
    const levels: Buffer[] = [];
    let prev = bytes(`base${f}`, 180);
    const base = prev;
    for (let l = 0; l < LEVELS; l++) levels.push(prev = Buffer.concat([prev, bytes(`f${f}l${l}`, 8)]));
    return { base, levels };
  });
}

/** The entry of level `l` of family `f` as a delta against its predecessor at entry `baseIndex`. */
function levelEntry(fam: Family, l: number, baseIndex: number, copy?: number): RawEntry {
  const prev = l === 0 ? fam.base : fam.levels[l - 1]!;
  return {
    type: OFS, base: baseIndex,
    data: deltaOf(prev.length, [{ copy: [0, copy ?? prev.length] }, { insert: fam.levels[l]!.subarray(prev.length) }]),
    oid: objectId(BLOB, fam.levels[l]!),
  };
}

/** git's order: each base followed by its chain. */
function familyOrder(fams: Family[], broken?: { family: number; level: number }): RawEntry[] {
  const entries: RawEntry[] = [];
  fams.forEach((fam, f) => {
    entries.push({ type: BLOB, data: fam.base });
    for (let l = 0; l < LEVELS; l++) {
      const bad = broken && broken.family === f && broken.level === l;
      entries.push(levelEntry(fam, l, entries.length - 1, bad ? fam.base.length + 8 * l + 64 : undefined));
    }
  });
  return entries;
}

/** Every base first, then level by level: no delta's base is recent when it comes. */
function levelOrder(fams: Family[]): RawEntry[] {
  const entries: RawEntry[] = fams.map((fam) => ({ type: BLOB, data: fam.base }));
  let previous = fams.map((_, f) => f);
  for (let l = 0; l < LEVELS; l++) {
    const now: number[] = [];
    fams.forEach((fam, f) => {
      now.push(entries.length);
      entries.push(levelEntry(fam, l, previous[f]!));
    });
    previous = now;
  }
  return entries;
}

const dirs: string[] = [];
after(() => dirs.forEach(rmrf));

function scratch(): string {
  const d = tmpDir('tsgit-stream-resolve-');
  dirs.push(d);
  return d;
}

/** git's .idx for a pack (with --strict when asked), as the oracle. */
function gitIdx(pack: string, strict = false): Buffer {
  const repo = scratch();
  git(repo, ['init', '-q', '--bare']);
  const out = path.join(scratch(), 'git.idx');
  git(repo, ['index-pack', ...(strict ? ['--strict'] : []), '-o', out, pack]);
  return fs.readFileSync(out);
}

/** Indexes `pack` in place under another name; returns the .idx and how many deltas the first pass resolved. */
async function ours(pack: string, options: Parameters<typeof indexPack>[2] = {}): Promise<{ idx: Buffer; streamed: number }> {
  const indexPath = path.join(scratch(), 'ours.idx');
  const r = await indexPack(null, pack, { threads: 2, indexPath, ...options });
  return { idx: fs.readFileSync(indexPath), streamed: r.passes.streamed };
}

describe('index-pack resolves deltas as the pack arrives', () => {
  const fams = families();
  const deltas = FAMILIES * LEVELS;

  it('resolves every delta of a pack in git\'s order during the first pass, and writes git\'s .idx', async () => {
    const { pack } = writePack(scratch(), familyOrder(fams));
    const r = await ours(pack);
    assert.equal(r.streamed, deltas);
    assert.deepEqual(r.idx, gitIdx(pack));
  });

  it('rebuilds bases that have left its rings from the pack file, along their chains', async () => {
    // Every base is 600 objects back, and at this cache limit the rings (1 KiB each) keep none of
    // these objects: each delta reads its whole chain (up to four deltas and a blob) back from the file.
    const { pack } = writePack(scratch(), levelOrder(fams));
    const r = await ours(pack, { cacheLimit: 16 << 10 });
    assert.equal(r.streamed, deltas);
    assert.deepEqual(r.idx, gitIdx(pack));
  });

  it('rebuilds in the second pass a delta base it dropped, from the nearest base along its chain', async () => {
    // One thread, so the second pass does it all. A blob, a delta of it (d1), and two deltas of d1
    // (the first with a child of its own): holding the first's content for its child puts the
    // resolver over its 16 KiB limit, so it drops the blob and d1, and the second delta of d1 needs
    // d1 rebuilt from the blob (re-read and re-applied, a chain of one delta).
    const blob = bytes('dropped base', 10_000);
    const d1 = Buffer.concat([blob, bytes('d1', 100)]);
    const d2a = Buffer.concat([d1, bytes('d2a', 100)]), d2b = Buffer.concat([d1, bytes('d2b', 100)]);
    const d3 = Buffer.concat([d2a, bytes('d3', 100)]);
    const on = (base: Buffer, result: Buffer, at: number): RawEntry => ({
      type: OFS, base: at, data: deltaOf(base.length, [{ copy: [0, base.length] }, { insert: result.subarray(base.length) }]),
    });
    const { pack } = writePack(scratch(), [
      { type: BLOB, data: blob }, on(blob, d1, 0), on(d1, d2a, 1), on(d2a, d3, 2), on(d1, d2b, 1),
    ]);
    const r = await ours(pack, { threads: 1, cacheLimit: 16 << 10 });
    assert.equal(r.streamed, 0);
    assert.deepEqual(r.idx, gitIdx(pack));
  });

  it('indexes the same pack arriving as a stream in small pieces, resolving some of it as it comes', async () => {
    const { pack } = writePack(scratch(), levelOrder(fams));
    const data = fs.readFileSync(pack);
    const pieces = Array.from({ length: Math.ceil(data.length / 1000) }, (_, k) => data.subarray(k * 1000, k * 1000 + 1000));
    const objects = path.join(scratch(), 'objects');
    const r = await indexPack(objects, Readable.from(pieces), { threads: 2, cacheLimit: 16 << 10 });
    assert.ok(r.passes.streamed > 0, 'some deltas resolved as they came');
    assert.deepEqual(fs.readFileSync(r.indexPath), gitIdx(pack));
  });

  it('leaves a broken delta and its descendants to the second pass, which reports it as without the first', async () => {
    const { pack, offsets } = writePack(scratch(), familyOrder(fams, { family: 300, level: 1 }));
    const bad = offsets[300 * (LEVELS + 1) + 2]!;
    const early = await ours(pack).then(() => null, (e: Error) => e);
    const late = await ours(pack, { threads: 1 }).then(() => null, (e: Error) => e);
    assert.ok(early && late, 'both refuse the pack');
    assert.match(late.message, new RegExp(`offset ${bad}\\b`));
    assert.equal(early.message, late.message);
  });

  it('leaves the OFS_DELTA children of a REF_DELTA to the second pass', async () => {
    const entries = familyOrder(fams.slice(0, 500));
    // A REF_DELTA against the first base, and a chain of OFS_DELTAs on it.
    const fam = fams[500]!;
    entries.push({ type: REF, baseOid: objectId(BLOB, fams[0]!.base), data: deltaOf(fams[0]!.base.length, [{ copy: [0, 100] }, { insert: fam.base }]), oid: objectId(BLOB, Buffer.concat([fams[0]!.base.subarray(0, 100), fam.base])) });
    const refAt = entries.length - 1;
    const refContent = Buffer.concat([fams[0]!.base.subarray(0, 100), fam.base]);
    const chain = { base: refContent, levels: [] as Buffer[] };
    let prev = refContent;
    for (let l = 0; l < LEVELS; l++) chain.levels.push(prev = Buffer.concat([prev, bytes(`ref${l}`, 8)]));
    for (let l = 0; l < LEVELS; l++) entries.push(levelEntry(chain, l, l === 0 ? refAt : entries.length - 1));
    const { pack } = writePack(scratch(), entries);
    const r = await ours(pack);
    assert.equal(r.streamed, 500 * LEVELS);
    assert.deepEqual(r.idx, gitIdx(pack));
  });
});

describe('index-pack --strict on trees resolved as the pack arrives', () => {
  // Blobs, then a tree of 40 of them and a chain of deltas that each point one entry elsewhere:
  // the checks of a delta against a clean base look only at what it does not copy.
  const blobs = Array.from({ length: 2100 }, (_, k) => bytes(`blob${k}`, 40 + (k % 50)));
  const entryOf = (name: string, blob: Buffer) => Buffer.concat([Buffer.from(`100644 ${name}\0`), objectId(BLOB, blob)]);
  const names = Array.from({ length: 40 }, (_, k) => `f${String(k).padStart(3, '0')}`);

  function treePack(hostile: boolean): string {
    const entries: RawEntry[] = blobs.map((data) => ({ type: BLOB, data }));
    let lines = names.map((n, k) => entryOf(n, blobs[k]!));
    entries.push({ type: TREE, data: Buffer.concat(lines) });
    for (let v = 1; v <= 30; v++) {
      // The hostile version's twentieth names its first entry as the second is named (git's fsck:
      // duplicateEntries, an error at every level).
      const twin = hostile && v === 20;
      const j = twin ? 0 : (v * 7) % names.length;
      const before = Buffer.concat(lines.slice(0, j)).length, old = Buffer.concat(lines);
      const line = entryOf(names[twin ? 1 : j]!, blobs[100 + v]!);
      const next = [...lines.slice(0, j), line, ...lines.slice(j + 1)];
      const after = before + lines[j]!.length;
      entries.push({
        type: OFS, base: entries.length - 1, oid: objectId(TREE, Buffer.concat(next)),
        data: deltaOf(old.length, [...(before ? [{ copy: [0, before] as [number, number] }] : []), { insert: line },
          ...(after < old.length ? [{ copy: [after, old.length - after] as [number, number] }] : [])]),
      });
      if (twin) break;
      lines = next;
    }
    return writePack(scratch(), entries).pack;
  }

  it('checks every tree and writes git\'s .idx', async () => {
    const pack = treePack(false);
    const r = await ours(pack, { strict: {} });
    assert.equal(r.streamed, 30);
    assert.deepEqual(r.idx, gitIdx(pack, true));
  });

  it('finds an entry a hostile delta inserts, as the second pass alone does', async () => {
    const pack = treePack(true);
    const early = await ours(pack, { strict: {} }).then(() => null, (e: Error) => e);
    const late = await ours(pack, { strict: {}, threads: 1 }).then(() => null, (e: Error) => e);
    assert.ok(early && late, 'both refuse the pack');
    assert.match(late.message, /duplicateEntries/);
    assert.equal(early.message, late.message);
    // Received as a stream, which the stream resolver's error stops at the next piece.
    const data = fs.readFileSync(pack);
    const pieces = Array.from({ length: Math.ceil(data.length / 4096) }, (_, k) => data.subarray(k * 4096, k * 4096 + 4096));
    const objects = path.join(scratch(), 'objects');
    await assert.rejects(indexPack(objects, Readable.from(pieces), { threads: 2, strict: {} }), { message: late.message.replace(pack, '<stdin>') });
    assert.deepEqual(fs.readdirSync(path.join(objects, 'pack')), [], 'nothing left behind');
  });

  it('stops reading a stream soon after an object fails its check', async () => {
    // The bad tree delta early, then 60,000 blobs arriving a piece a millisecond: the stream
    // resolver's error ends the transfer long before its end, as git's index-pack dies at once.
    // (The resolver thread's start comes first: on two busy cores it took 220 pieces, a third of
    // the 20,000 blobs' pieces this test once had.)
    const entries: RawEntry[] = blobs.map((data) => ({ type: BLOB, data }));
    const tree = Buffer.concat([entryOf(names[0]!, blobs[0]!), entryOf(names[1]!, blobs[1]!)]);
    entries.push({ type: TREE, data: tree });
    const twin = entryOf(names[1]!, blobs[2]!);
    entries.push({
      type: OFS, base: entries.length - 1, oid: objectId(TREE, Buffer.concat([twin, entryOf(names[1]!, blobs[1]!)])),
      data: deltaOf(tree.length, [{ insert: twin }, { copy: [tree.length / 2, tree.length / 2] }]),
    });
    for (let k = 0; k < 60000; k++) entries.push({ type: BLOB, data: bytes(`tail${k}`, 32) });
    const data = fs.readFileSync(writePack(scratch(), entries).pack);
    const total = Math.ceil(data.length / 4096);
    let pulled = 0;
    async function* slow(): AsyncGenerator<Buffer> {
      for (let k = 0; k < total; k++) {
        pulled++;
        await new Promise((resolve) => setTimeout(resolve, 1));
        yield data.subarray(k * 4096, k * 4096 + 4096);
      }
    }
    await assert.rejects(indexPack(path.join(scratch(), 'objects'), slow(), { threads: 2, strict: {} }), /duplicateEntries/);
    assert.ok(pulled < total * 0.75, `read ${pulled} of ${total} pieces`);
  });
});
