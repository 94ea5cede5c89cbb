// The stream resolver's content rings (src/packing/index-pack/content-ring.ts), against a model:
// whatever is found by its object number holds exactly the bytes kept for it, whatever was
// dropped to make room stays dropped, the newest is always found, and no room is given over the
// base a content is made from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContentRing } from '../src/packing/index-pack/content-ring.js';

/** A small deterministic generator (xorshift32). */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

const byteOf = (i: number, k: number): number => (i * 31 + k * 7) & 0xff;

function check(ring: ContentRing, i: number, n: number): boolean {
  const got = ring.get(i);
  if (!got) return false;
  assert.equal(got.length, n, `object ${i}'s length`);
  for (let k = 0; k < n; k++) if (got[k] !== byteOf(i, k)) assert.fail(`object ${i} byte ${k} was overwritten`);
  return true;
}

for (const [name, maxSize] of [['objects of up to an eighth of the ring', 9000], ['many tiny objects, past the entry limit', 4]] as const) {
  test(`a content ring keeps what it returns intact: ${name}`, () => {
    const size = 64 << 10;
    const ring = new ContentRing(size);
    const next = random(maxSize);
    const sizes = new Map<number, number>();
    const dropped = new Set<number>();
    const order: number[] = [];
    let refused = 0;
    for (let step = 0; step < 60000; step++) {
      // Spread object numbers, so that the index's probe chains cross.
      const i = step * 977 + (step % 13);
      const n = Math.floor(next() * maxSize);
      const room = ring.room(n, null);
      if (!room) {
        assert.ok(n > size >>> 3, `room refused for ${n} bytes`);
        refused++;
        continue;
      }
      for (let k = 0; k < n; k++) room[k] = byteOf(i, k);
      ring.keep(i, room);
      sizes.set(i, n);
      assert.ok(check(ring, i, n), 'the newest is found');
      order.push(i);
      if (step % 500 === 0) {
        // The oldest go first: what is found is the newest objects, with no gap among them.
        let bytes = 0, live = 0, gone = false;
        for (let k = order.length - 1; k >= 0; k--) {
          const j = order[k]!, m = sizes.get(j)!;
          if (dropped.has(j)) {
            assert.equal(ring.get(j), null, `object ${j} came back`);
            gone = true;
          } else if (check(ring, j, m)) {
            assert.ok(!gone, `object ${j} is found though a newer one was dropped`);
            bytes += m;
            live++;
          } else {
            dropped.add(j);
            gone = true;
          }
        }
        assert.ok(bytes <= size, `${bytes} bytes live in a ring of ${size}`);
        assert.ok(live <= 1 << 14, `${live} entries live`);
        assert.ok(live > 0);
      }
    }
    if (maxSize > size >>> 3) assert.ok(refused > 0, 'objects over an eighth of the ring were refused');
    else assert.ok(dropped.size > 40000, `the entry limit dropped the oldest (${dropped.size})`);
  });
}

test('no room is given over the base a new content is made from, and room elsewhere is', () => {
  // Eight entries of an eighth fill the ring: the ninth goes at the front, over the first.
  const ring = new ContentRing(8192);
  for (let i = 1; i <= 8; i++) ring.keep(i, ring.room(1024, null)!);
  const first = ring.get(1)!, second = ring.get(2)!;
  assert.equal(ring.room(1024, first), undefined);
  assert.equal(ring.room(1024, second)?.byteOffset, first.byteOffset);
  assert.ok(ring.room(1024, Buffer.alloc(1024)));
});
