// The resolver's buffer pool: a buffer given back is the one taken next in its size class, for as
// many bytes as the pool's limit, whatever other classes hold. A pool that refused buffers once a
// fixed megabyte of small ones had come back threw away every 64 KiB tree result of a history
// with a flat directory of 1,500 files (1.6 GB of garbage, ~40 MiB of it held at a time).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferPool, POOLED_MAX } from '../src/packing/index-pack/buffer-pool.js';

describe('index-pack buffer pool', () => {
  it('reuses buffers of one class while others fill a megabyte', () => {
    const pool = new BufferPool(16 << 20);
    const small = Array.from({ length: 512 }, () => pool.take(3000));
    for (const b of small) pool.give(b);
    const tree = pool.take(40_000);
    assert.equal(tree.length, 65536);
    pool.give(tree);
    for (let i = 0; i < 100; i++) {
      const again = pool.take(50_000);
      assert.equal(again, tree, `take ${i} gave a fresh buffer`);
      pool.give(again);
    }
    assert.equal(pool.take(3000), small[small.length - 1]);
  });

  it('keeps no more than its limit', () => {
    const pool = new BufferPool(1 << 20);
    const bufs = Array.from({ length: 20 }, () => pool.take(65536));
    for (const b of bufs) pool.give(b);
    const back = new Set(Array.from({ length: 20 }, () => pool.take(65536)));
    assert.equal(bufs.filter((b) => back.has(b)).length, 16);
  });

  it('gives objects larger than it pools buffers of their own size, never kept', () => {
    const pool = new BufferPool(64 << 20);
    const big = pool.take(POOLED_MAX + 1);
    assert.equal(big.length, POOLED_MAX + 1);
    pool.give(big);
    assert.notEqual(pool.take(POOLED_MAX + 1), big);
  });
});
