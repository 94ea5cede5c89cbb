// The resolver's buffer pool: blocks of shared slabs, split and merged as a buddy allocator does.
// A block given back serves the next take of any class it can hold, so the memory the pool holds
// is what was out at one time, not what each size class once had out (the pool before kept whole
// buffers per class: 6 MiB a resolver thread on an 80k-commit history, for at most 3.3 MiB out
// at once); and nothing given back is left to the collector.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferPool, POOLED_MAX } from '../src/packing/index-pack/buffer-pool.js';
import { seededRandom } from './helpers.js';

/** Where a block lies: the same memory whatever view of it take() returned. */
function place(b: Buffer): [ArrayBufferLike, number] {
  return [b.buffer, b.byteOffset];
}

describe('index-pack buffer pool', () => {
  it('gives blocks of the power of two at least as large as asked', () => {
    const pool = new BufferPool();
    assert.equal(pool.take(1).length, 64);
    assert.equal(pool.take(3000).length, 4096);
    assert.equal(pool.take(4096).length, 4096);
    assert.equal(pool.take(40_000).length, 65536);
    assert.equal(pool.take(POOLED_MAX).length, POOLED_MAX);
  });

  it('never gives out two blocks over the same bytes', () => {
    const pool = new BufferPool();
    const out: Buffer[] = [];
    // A seeded mix of takes and gives of every class.
    const next = seededRandom(7);
    for (let i = 0; i < 3000; i++) {
      if (out.length && next() < 0.45) pool.give(out.splice(Math.floor(next() * out.length), 1)[0]!);
      else out.push(pool.take(1 + Math.floor(2 ** (next() * 18))));
    }
    const bySlab = new Map<ArrayBufferLike, Buffer[]>();
    for (const b of out) bySlab.set(b.buffer, [...(bySlab.get(b.buffer) ?? []), b]);
    for (const blocks of bySlab.values()) {
      blocks.sort((a, b) => a.byteOffset - b.byteOffset);
      for (let i = 1; i < blocks.length; i++) {
        const prev = blocks[i - 1]!;
        assert.ok(blocks[i]!.byteOffset >= prev.byteOffset + prev.length, `blocks overlap at ${blocks[i]!.byteOffset}`);
      }
    }
  });

  it('merges every block given back, in any order, into whole slabs again', () => {
    const pool = new BufferPool();
    const out: Buffer[] = [];
    const slabs = new Set<ArrayBufferLike>();
    const next = seededRandom(11);
    for (let i = 0; i < 20_000; i++) {
      if (out.length && next() < 0.48) pool.give(out.splice(Math.floor(next() * out.length), 1)[0]!);
      else {
        const b = pool.take(1 + Math.floor(2 ** (next() * 16)));
        slabs.add(b.buffer);
        out.push(b);
      }
    }
    assert.ok(slabs.size > 1 && out.length > 100, `${out.length} blocks out over ${slabs.size} slabs`);
    while (out.length) pool.give(out.splice(Math.floor(next() * out.length), 1)[0]!);
    // Each slab is one free block again: as many whole ones as there were, and no new one.
    const whole = Array.from(slabs, () => pool.take(POOLED_MAX));
    assert.ok(whole.every((b) => b.byteOffset === 0 && slabs.has(b.buffer)));
    assert.equal(new Set(whole.map((b) => b.buffer)).size, slabs.size);
  });

  it('serves a larger class from smaller blocks given back, with no new memory', () => {
    const pool = new BufferPool();
    const small = Array.from({ length: 256 }, () => pool.take(3000));
    const slab = small[0]!.buffer;
    assert.ok(small.every((b) => b.buffer === slab), 'a megabyte of 4 KiB blocks is one slab');
    for (const b of small) pool.give(b);
    // The pool of whole buffers per class allocated a new 64 KiB buffer here, and kept both.
    const tree = pool.take(40_000);
    assert.deepEqual(place(tree), [slab, 0]);
    pool.give(tree);
    assert.deepEqual(place(pool.take(POOLED_MAX)), [slab, 0]);
  });

  it('takes the lowest free block first', () => {
    const pool = new BufferPool();
    const blocks = Array.from({ length: 8 }, () => pool.take(60_000));
    assert.deepEqual(blocks.map((b) => b.byteOffset), [0, 1, 2, 3, 4, 5, 6, 7].map((k) => k * 65536));
    pool.give(blocks[6]!);
    pool.give(blocks[2]!);
    assert.deepEqual(place(pool.take(50_000)), place(blocks[2]!));
  });

  it('gives objects larger than it pools buffers of their own size, never kept', () => {
    const pool = new BufferPool();
    const big = pool.take(POOLED_MAX + 1);
    assert.equal(big.length, POOLED_MAX + 1);
    pool.give(big);
    assert.notEqual(pool.take(POOLED_MAX + 1).buffer, big.buffer);
  });
});
