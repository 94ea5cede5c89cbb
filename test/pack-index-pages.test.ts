// A .idx is read page by page as lookups need it (src/pack/idx/read.ts). Every answer must be the
// one the whole file gives, before and after the rest is read in one go, and a file that shrinks
// under an open index must give a clear error rather than zeros.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { ensureCorpus } from '../bench/corpus.js';
import { CorruptError } from '../src/core/errors.js';
import { PackIndex } from '../src/pack/idx/read.js';
import { rmrf, tmpDir } from './helpers.js';

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
