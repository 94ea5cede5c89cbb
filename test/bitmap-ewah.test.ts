// The bitmap building blocks without git: Bitset set operations against a plain Set, EWAH encode
// and decode round trips (runs, literals, XOR forms), refusal of malformed EWAH input, git's name
// hash on hand-computed values, and the commit selection spacing rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorruptError } from '../src/core/errors.js';
import { Bitset } from '../src/pack/bitmap/bitset.js';
import { EwahBitmap, encodeEwah, encodeEwahXor, ewahWordCount } from '../src/pack/bitmap/ewah.js';
import { nextCommitGap, selectBitmapCommits } from '../src/packing/bitmap/select.js';
import { packNameHash, packNameHashOf } from '../src/pack/name-hash.js';
import { seededRandom } from './helpers.js';

/** Bits with long zero runs, long one runs and scattered literals, up to `n` bits. */
function randomSet(rand: () => number, n: number): Set<number> {
  const out = new Set<number>();
  let i = 0;
  while (i < n) {
    const kind = rand();
    const len = Math.floor(rand() * 400);
    if (kind < 0.3) i += len;
    else if (kind < 0.5) for (let k = 0; k < len && i < n; k++) out.add(i++);
    else for (let k = 0; k < len && i < n; k++, i++) if (rand() < 0.1) out.add(i);
  }
  return out;
}

function bitsetOf(s: Set<number>, size = 0): Bitset {
  const b = new Bitset(size);
  for (const i of s) b.add(i);
  return b;
}

function sorted(s: Iterable<number>): number[] {
  return [...s].sort((a, b) => a - b);
}

test('Bitset operations agree with a plain Set', () => {
  const rand = seededRandom(1);
  for (let round = 0; round < 30; round++) {
    const n = 1 + Math.floor(rand() * 3000);
    const a = randomSet(rand, n), b = randomSet(rand, Math.floor(rand() * 3000));
    const A = bitsetOf(a), B = bitsetOf(b);
    assert.deepEqual(Array.from(A.toArray()), sorted(a));
    assert.equal(A.count(), a.size);
    assert.equal(A.last(), a.size ? Math.max(...a) : -1);
    assert.equal(A.isEmpty(), a.size === 0);
    for (let k = 0; k < 50; k++) {
      const i = Math.floor(rand() * 3100);
      assert.equal(A.has(i), a.has(i), `has(${i})`);
    }
    assert.deepEqual(Array.from(A.clone().or(B).toArray()), sorted(new Set([...a, ...b])));
    assert.deepEqual(Array.from(A.clone().and(B).toArray()), sorted([...a].filter(x => b.has(x))));
    assert.deepEqual(Array.from(A.clone().andNot(B).toArray()), sorted([...a].filter(x => !b.has(x))));
    assert.deepEqual(Array.from(A.clone().xor(B).toArray()),
      sorted([...a].filter(x => !b.has(x)).concat([...b].filter(x => !a.has(x)))));
    assert.ok(A.equals(bitsetOf(a, 10000)), 'trailing zero words do not matter');
    assert.equal(A.equals(B), sorted(a).join() === sorted(b).join());
  }
});

test('EWAH round trips: decode(encode(x)) = x, XOR forms decode to a ^ b, word counts match', () => {
  const rand = seededRandom(2);
  for (let round = 0; round < 60; round++) {
    const n = 1 + Math.floor(rand() * 5000);
    const a = bitsetOf(randomSet(rand, n)), b = bitsetOf(randomSet(rand, n));
    const enc = encodeEwah(a);
    const e = EwahBitmap.read(enc, 0, enc.length, () => 'test');
    assert.equal(e.byteLength, enc.length);
    assert.equal(e.wordCount, ewahWordCount(a));
    assert.equal(e.bitSize, 64 * Math.ceil((a.last() + 1) / 64));
    assert.ok(e.toBitset(n, () => 'test').equals(a));
    const x = encodeEwahXor(a, b);
    const ex = EwahBitmap.read(x, 0, x.length, () => 'test');
    assert.equal(ex.wordCount, ewahWordCount(a, b));
    const target = b.clone();
    ex.xorInto(target, n, () => 'test');
    assert.ok(target.equals(a), 'b ^ (a ^ b) = a');
    const orTarget = b.clone();
    e.orInto(orTarget, n, () => 'test');
    assert.ok(orTarget.equals(a.clone().or(b)));
  }
});

test('EWAH encoding: runs of zeros and ones become run-length words, and the empty bitmap is one word', () => {
  const empty = encodeEwah(new Bitset(1000), 0);
  // bit size 0, one word (an RLW with nothing), RLW at index 0: what ewah_new() serializes to.
  assert.deepEqual([...empty], [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const ones = new Bitset(64 * 5);
  for (let i = 64; i < 64 * 5; i++) ones.add(i);
  const enc = encodeEwah(ones);
  // 1 zero word then 4 one words: RLW(run 0 x1) then RLW(run 1 x4); rlw index 1.
  assert.equal(enc.readUInt32BE(4), 2);
  assert.equal(enc.readUInt32BE(8), 0); assert.equal(enc.readUInt32BE(12), 1 << 1);
  assert.equal(enc.readUInt32BE(16), 0); assert.equal(enc.readUInt32BE(20), (4 << 1) | 1);
  assert.equal(enc.readUInt32BE(24), 1);
  const literal = new Bitset(10);
  literal.add(0); literal.add(63);
  const lit = encodeEwah(literal, 64);
  // RLW with one literal word (count in bits 33..), then the literal: bit 63 and bit 0.
  assert.equal(lit.readUInt32BE(8), 1 << 1); assert.equal(lit.readUInt32BE(12), 0);
  assert.equal(lit.readUInt32BE(16), 0x80000000); assert.equal(lit.readUInt32BE(20), 1);
});

test('malformed EWAH bitmaps are refused with the offset named', () => {
  const a = new Bitset(200);
  a.add(3); a.add(150);
  const enc = encodeEwah(a);
  assert.throws(() => EwahBitmap.read(enc, 0, 6, () => 'x.bitmap'), (e: unknown) => e instanceof CorruptError && /x\.bitmap: EWAH bitmap header at offset 0/.test(e.message));
  assert.throws(() => EwahBitmap.read(enc, 0, enc.length - 1, () => 'x.bitmap'), /claims 4 words/);
  const e = EwahBitmap.read(enc, 0, enc.length, () => 'x.bitmap');
  assert.throws(() => e.toBitset(100, () => 'x.bitmap'), /sets bits past the 100 objects/);
  assert.throws(() => e.toBitset(150, () => 'x.bitmap'), /sets bits past the 150 objects/);
  assert.ok(e.toBitset(151, () => 'x.bitmap').equals(a));
  const lying = Buffer.from(enc);
  lying.writeUInt32BE(lying.readUInt32BE(8) + (5 << 1), 8); // 5 more literal words than exist
  assert.throws(() => EwahBitmap.read(lying, 0, lying.length, () => 'x.bitmap').toBitset(200, () => 'x.bitmap'),
    /promising \d+ literal words past its end/);
  const hugeRun = Buffer.from(encodeEwah(new Bitset(64), 0));
  hugeRun.writeUInt32BE(0xffffffff, 12); // a run of 2^31 words of ones
  assert.throws(() => EwahBitmap.read(hugeRun, 0, hugeRun.length, () => 'x.bitmap').toBitset(64, () => 'x.bitmap'),
    /sets bits past the 64 objects/);
});

test('pack name hash: git\'s whitespace is skipped, bytes are unsigned', () => {
  assert.equal(packNameHashOf(''), 0);
  assert.equal(packNameHashOf('a'), 0x61000000);
  assert.equal(packNameHashOf('ab'), ((0x61000000 >>> 2) + 0x62000000) >>> 0);
  assert.equal(packNameHashOf('a b\t\n\r'), packNameHashOf('ab'));
  assert.notEqual(packNameHashOf('a\vb'), packNameHashOf('ab'), 'vertical tab is not space to git');
  assert.equal(packNameHash(Uint8Array.of(0xff)), 0xff000000);
  assert.equal(packNameHash(Buffer.from('--src/main.c--'), 2, 12), packNameHashOf('src/main.c'));
});

test('selection: gaps widen by one up to 100, then up to 5000 past 20000 commits', () => {
  assert.equal(nextCommitGap(0), 0);
  assert.equal(nextCommitGap(100), 0);
  assert.equal(nextCommitGap(101), 1);
  assert.equal(nextCommitGap(150), 50);
  assert.equal(nextCommitGap(200), 100);
  assert.equal(nextCommitGap(20000), 100);
  assert.equal(nextCommitGap(20001), 100);
  assert.equal(nextCommitGap(20150), 150);
  assert.equal(nextCommitGap(30000), 5000);
});

test('selection: all commits below 100, newest first; sparse, merge- and preference-aware above', () => {
  const dates = [5, 3, 9, 1, 7];
  const few = selectBitmapCommits({ count: 5, date: i => dates[i]!, isMerge: () => false });
  assert.deepEqual(Array.from(few), [2, 4, 0, 1, 3]);
  // 300 commits, candidate i has date 1000 - i, so sorted order is the identity.
  const n = 300;
  const plain = Array.from(selectBitmapCommits({ count: n, date: i => 1000 - i, isMerge: () => false }));
  const expected: number[] = [];
  for (let i = 0; ; ) {
    const gap = nextCommitGap(i);
    if (i + gap >= n) break;
    expected.push(i + gap);
    i += gap + 1;
  }
  assert.deepEqual(plain, expected);
  assert.deepEqual(plain.slice(0, 101), Array.from({ length: 101 }, (_, i) => i));
  assert.deepEqual(plain.slice(101), [102, 106, 114, 130, 162, 226]);
  // In the window 163..226 the last merge wins over the window's end; a preferred commit over both.
  const merges = new Set([170, 200]);
  const withMerges = selectBitmapCommits({ count: n, date: i => 1000 - i, isMerge: i => merges.has(i) });
  assert.equal(withMerges[withMerges.length - 1], 200);
  const withPreferred = selectBitmapCommits({ count: n, date: i => 1000 - i, isMerge: i => merges.has(i), preferred: i => i === 180 || i === 190 });
  assert.equal(withPreferred[withPreferred.length - 1], 180);
  assert.equal(selectBitmapCommits({ count: n, date: i => 1000 - i, isMerge: () => false }, 50).length, 50);
  // Equal dates keep the caller's order.
  assert.deepEqual(Array.from(selectBitmapCommits({ count: 4, date: () => 7, isMerge: () => false })), [0, 1, 2, 3]);
});
