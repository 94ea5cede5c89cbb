// A .idx is read page by page as lookups need it (src/pack/idx/read.ts). Opening a big index and
// looking up one id must read a few pages of it, not the file (its buffer holds the file's bytes
// only where they were read). Every answer must be the one the whole file gives, before and after
// the rest is read in one go, and a file that shrinks under an open index must give a clear error
// rather than zeros.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { ensureCorpus } from '../bench/corpus.js';
import { CorruptError } from '../src/core/errors.js';
import { PAGE, PackIndex } from '../src/pack/idx/read.js';
import { writeIdx } from '../src/pack/idx/write.js';
import { rmrf, tmpDir } from './helpers.js';

/** The pages of `index.buf` that hold the file's bytes (`file`): the ones read so far. */
function pagesRead(index: PackIndex, file: Buffer): number[] {
  const read: number[] = [];
  for (let at = 0; at < file.length; at += PAGE) {
    if (index.buf.subarray(at, at + PAGE).equals(file.subarray(at, at + PAGE))) read.push(at / PAGE);
  }
  return read;
}

test('one lookup in a big index reads a few of its pages, not the whole file', () => {
  const dir = tmpDir('tsgit-idx-pages-');
  try {
    // 200,000 ids (4.8 MiB of ids, CRCs and offsets), none of whose pages is zeros as an unread one is.
    const n = 200_000;
    const ids = Array.from({ length: n }, (_, i) => crypto.createHash('sha1').update(`object ${i}`).digest()).sort(Buffer.compare);
    const crcs = Uint32Array.from(ids, id => id.readUInt32BE(16) | 1);
    const offsets = Float64Array.from({ length: n }, (_, i) => 12 + i * 100);
    const file = writeIdx({ count: n, ids: Buffer.concat(ids), crcs, offsets }, Int32Array.from({ length: n }, (_, i) => i), Buffer.alloc(20, 7));
    const idxPath = path.join(dir, 'pack-big.idx');
    fs.writeFileSync(idxPath, file);
    const pages = Math.ceil(file.length / PAGE);
    assert.ok(pages > 70, `${pages} pages`);
    const paged = PackIndex.load(idxPath);
    try {
      // Open: the header and fan-out, and the trailer with the pack's checksum.
      assert.deepEqual(pagesRead(paged, file), [0, pages - 1]);
      const target = 123_457;
      // A search reads ids into a scratch window, not into the buffer: nothing is mapped for it.
      assert.equal(paged.find(ids[target]!), target);
      assert.deepEqual(pagesRead(paged, file), [0, pages - 1]);
      assert.equal(paged.offset(target), offsets[target]);
      assert.equal(paged.crc(target), crcs[target]);
      const read = pagesRead(paged, file);
      // The pages holding its CRC and offset.
      const pageOf = (at: number) => Math.floor(at / PAGE);
      const tables = 8 + 1024;
      for (const at of [tables + n * 20 + target * 4, tables + n * 24 + target * 4]) {
        assert.ok(read.includes(pageOf(at)), `page ${pageOf(at)} (byte ${at}) read: ${read.join(' ')}`);
      }
      assert.ok(read.length <= 4, `${read.length} of ${pages} pages read for one lookup: ${read.join(' ')}`);
      // Twice as many lookups as the file has pages are answered from the file; the next reads it whole.
      for (let k = 1; k < 2 * pages; k++) {
        const i = (k * 7919) % n;
        assert.equal(paged.find(ids[i]!), i);
      }
      assert.ok(pagesRead(paged, file).length < pages / 4);
      assert.equal(paged.find(ids[5]!), 5);
      assert.equal(pagesRead(paged, file).length, pages);
      // Everything, when asked for.
      paged.loadAll();
      assert.equal(pagesRead(paged, file).length, pages);
    } finally {
      paged.close();
    }
  } finally {
    rmrf(dir);
  }
});

test('lookups in a page-read index with skewed ids (crafted ones) find what a binary search finds', () => {
  const dir = tmpDir('tsgit-idx-pages-');
  try {
    // One fan-out bucket of 60,000 ids whose interpolation keys (bytes 1-4) are nearly all zero,
    // then a few far apart: the interpolation lands far from its target every time.
    const n = 60_000;
    const ids: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const id = Buffer.alloc(20, 0);
      id[0] = 0x42;
      if (i >= n - 20) id.writeUInt32BE(0xffffff00 + i - n + 20, 1);
      else id.writeUInt32BE(i * 2 + 1, 16);
      ids.push(id);
    }
    ids.sort(Buffer.compare);
    const offsets = Float64Array.from({ length: n }, (_, i) => 12 + i * 100);
    const file = writeIdx({ count: n, ids: Buffer.concat(ids), crcs: Uint32Array.from({ length: n }, (_, i) => i | 1), offsets },
      Int32Array.from({ length: n }, (_, i) => i), Buffer.alloc(20, 7));
    const idxPath = path.join(dir, 'pack-skewed.idx');
    fs.writeFileSync(idxPath, file);
    const whole = new PackIndex(file, idxPath);
    const paged = PackIndex.load(idxPath);
    try {
      for (const i of [0, 1, 17, 29_999, n - 21, n - 20, n - 2, n - 1]) {
        assert.equal(paged.find(ids[i]!), i, `id ${i}`);
        const missing = Buffer.from(ids[i]!);
        missing[19] ^= 1;
        assert.equal(paged.find(missing), whole.find(missing), `missing next to ${i}`);
        missing[19] ^= 1;
        missing[5] = 0xee;
        assert.equal(paged.find(missing), -1, `missing beyond ${i}`);
      }
      assert.ok(pagesRead(paged, file).length <= 2, 'the lookups read no page into the buffer');
    } finally {
      paged.close();
    }
  } finally {
    rmrf(dir);
  }
});

test('a whole index looked up often enough searches by the first two bytes, with the same answers', () => {
  // 140,000 ids, past the 2^17 an index needs to have the table: a walk's count of lookups (a
  // sixteenth of them) makes it build its table of first-two-byte ranges; a crafted index whose ids
  // all share those bytes leaves one range.
  const n = 140_000;
  for (const shape of ['random', 'one prefix']) {
    const ids = Array.from({ length: n }, (_, i) => {
      const id = crypto.createHash('sha1').update(`object ${i}`).digest();
      if (shape === 'one prefix') id.writeUInt16BE(0x4242, 0);
      return id;
    }).sort(Buffer.compare);
    const file = writeIdx({ count: n, ids: Buffer.concat(ids), crcs: new Uint32Array(n), offsets: Float64Array.from({ length: n }, (_, i) => 12 + i) },
      Int32Array.from({ length: n }, (_, i) => i), Buffer.alloc(20, 7));
    const index = new PackIndex(file, `pack-${shape}.idx`);
    const reference = (id: Buffer) => {
      let lo = 0, hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = Buffer.compare(ids[mid]!, id);
        if (c === 0) return mid;
        if (c < 0) lo = mid + 1; else hi = mid;
      }
      return -1;
    };
    for (let k = 0; k <= n / 16; k++) assert.equal(index.find(ids[(k * 7919) % n]!), (k * 7919) % n);
    assert.ok(index.searchesByPrefix, `${shape}: the table is built`);
    for (let i = 0; i < n; i++) assert.equal(index.find(ids[i]!), i, `${shape}: id ${i}`);
    const probes = [Buffer.alloc(20, 0), Buffer.alloc(20, 0xff), ...[0, 1, 99_999, n - 1].flatMap(i => {
      const next = Buffer.from(ids[i]!);
      next[19] ^= 1;
      const otherPrefix = Buffer.from(ids[i]!);
      otherPrefix[1] ^= 0x80;
      return [next, otherPrefix];
    })];
    for (const id of probes) assert.equal(index.find(id), reference(id), `${shape}: ${id.toString('hex')}`);
  }
});

describe('a pack index read as it is used', () => {
  let idxPath = '';
  before(async () => {
    const { gitDir } = await ensureCorpus('small');
    const dir = path.join(gitDir, 'objects', 'pack');
    idxPath = path.join(dir, fs.readdirSync(dir).find(n => n.endsWith('.idx'))!);
  });

  test('answers as the whole file does', () => {
    const whole = new PackIndex(fs.readFileSync(idxPath), idxPath);
    const paged = PackIndex.load(idxPath);
    try {
      assert.ok(whole.buf.length > 64 * 1024, 'the index is big enough to be read in pages');
      assert.ok(paged.packChecksum().equals(whole.packChecksum()));
      // A few scattered lookups first (pages read one by one), then every one (the rest in one go).
      const order = Array.from({ length: whole.count }, (_, i) => i);
      for (let k = 0; k < order.length; k++) {
        const i = order[(k * 7919) % order.length]!;
        const id = whole.oid(i);
        assert.equal(paged.find(id), i);
        assert.equal(paged.offset(i), whole.offset(i));
        assert.equal(paged.crc(i), whole.crc(i));
        assert.ok(paged.buf.subarray(paged.oidAt(i), paged.oidAt(i) + 20).equals(id));
      }
      const missing = Buffer.from(whole.oid(0));
      missing[19] ^= 1;
      assert.equal(paged.find(missing), whole.find(missing));
    } finally {
      paged.close();
    }
  });

  test('a file that shrinks under an open index is an error', () => {
    const dir = tmpDir('tsgit-idx-pages-');
    try {
      const copy = path.join(dir, 'pack-x.idx');
      fs.copyFileSync(idxPath, copy);
      const paged = PackIndex.load(copy);
      try {
        // Keep the fan-out and trailer pages (already read), lose the middle.
        fs.truncateSync(copy, 8192);
        const whole = new PackIndex(fs.readFileSync(idxPath), idxPath);
        const id = whole.oid(whole.count - 2);
        assert.throws(() => paged.find(id), (e: Error) => e instanceof CorruptError && /shrank while being read/.test(e.message));
      } finally {
        paged.close();
      }
    } finally {
      rmrf(dir);
    }
  });
});
