// createDelta against pack/delta.ts's applyDelta (which checks every bound): the delta must rebuild
// the target exactly, for edits anywhere, matches longer than one copy instruction, offsets that
// need all four bytes, bases too short to index, and empty sides; and it must give up (null) rather
// than exceed the size it is allowed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { applyDelta } from '../src/pack/delta.js';
import { createDelta } from '../src/pack/delta-encode.js';

function roundTrip(base: Uint8Array, target: Uint8Array, maxSize = target.length + 1024): Uint8Array {
  const delta = createDelta(base, target, maxSize);
  assert.ok(delta, `a delta of at most ${maxSize} bytes`);
  const copy = Buffer.from(delta);
  assert.deepEqual(applyDelta(base, copy, 0, copy.length, 'pack', () => 'test delta'), Buffer.from(target));
  return copy;
}

/** A seeded generator (xorshift32), so that a failing round can be replayed. */
function generator(seed: number): { int: (n: number) => number; bytes: (n: number) => Buffer } {
  let x = seed | 0 || 1;
  const next = (): number => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return x >>> 0;
  };
  return {
    int: (n) => next() % n,
    bytes: (n) => { const b = Buffer.allocUnsafe(n); for (let i = 0; i < n; i++) b[i] = next() & 0xff; return b; },
  };
}

/** `base` with random replacements, insertions and deletions, and how many new bytes they put in. */
function edit(base: Buffer, edits: number, rng = generator(crypto.randomInt(1 << 30))): { target: Buffer; inserted: number } {
  let out = Buffer.from(base);
  let inserted = 0;
  for (let i = 0; i < edits; i++) {
    const at = rng.int(out.length + 1);
    const kind = rng.int(3);
    const len = 1 + rng.int(40);
    if (kind !== 1) inserted += len;
    if (kind === 0) out = Buffer.concat([out.subarray(0, at), rng.bytes(len), out.subarray(at)]);
    else if (kind === 1) out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + len))]);
    else out = Buffer.concat([out.subarray(0, at), rng.bytes(len), out.subarray(Math.min(out.length, at + len))]);
  }
  return { target: out, inserted };
}

test('a delta between two versions rebuilds the new one, and costs about what the edits put in', () => {
  // Each edit costs its new bytes, plus at most the unmatched bytes around it short of a whole
  // 16-byte block on either side, and an insert and a copy instruction.
  for (let round = 0; round < 200; round++) {
    const rng = generator(round + 1);
    const base = rng.bytes(200 + rng.int(5000));
    const edits = 1 + rng.int(6);
    const { target, inserted } = edit(base, edits, rng);
    const delta = roundTrip(base, target);
    const bound = inserted + edits * (2 * 16 + 2 + 8) + 16;
    assert.ok(delta.length <= bound, `round ${round}: ${delta.length} bytes for ${inserted} new bytes in ${edits} edits`);
    if (base.length >= 2000) assert.ok(delta.length < target.length / 4, `round ${round}: ${delta.length} of ${target.length}`);
  }
});

test('long matches split into copies of at most 64 KiB; offsets past 16 MiB use four bytes', () => {
  const base = crypto.randomBytes((1 << 24) + 300_000);
  const target = Buffer.concat([base.subarray((1 << 24) + 7, (1 << 24) + 250_000), Buffer.from('tail'), base.subarray(0, 70_000)]);
  const delta = roundTrip(base, target);
  assert.ok(delta.length < 200, `${delta.length} bytes`);
});

test('short or empty sides, and unrelated data, still rebuild exactly', () => {
  roundTrip(Buffer.alloc(0), Buffer.from('hello'));
  roundTrip(Buffer.from('short base'), Buffer.from('short base, longer target'));
  // An empty target from a base whose size takes three bytes: the four git needs at least.
  roundTrip(crypto.randomBytes(20000), Buffer.alloc(0));
  // From a smaller base its delta would be shorter, which git refuses to apply: none is made.
  assert.equal(createDelta(crypto.randomBytes(1000), Buffer.alloc(0), 100), null);
  roundTrip(crypto.randomBytes(1000), crypto.randomBytes(1000), 2000);
  roundTrip(Buffer.alloc(5000, 'ab'), Buffer.alloc(7000, 'ab'));
});

test('gives up when the delta would pass the size it is allowed', () => {
  const base = crypto.randomBytes(3000);
  assert.equal(createDelta(base, crypto.randomBytes(3000), 1400), null);
  const { target } = edit(base, 3);
  const full = roundTrip(base, target);
  assert.equal(createDelta(base, target, full.length - 1), null);
  assert.deepEqual(Buffer.from(createDelta(base, target, full.length)!), full);
  assert.equal(createDelta(base, target, 0), null);
});

test('repetitive text keeps its place: each edit costs its own bytes, at every alignment', () => {
  // Lines alike but for their numbers, one in 37 edited, as in the delta search's case of two
  // versions of a file: a look-alike line elsewhere must not take the place of the right one.
  const text = (version: number) => Array.from({ length: 400 }, (_, i) =>
    (i % 37 === version % 37 ? `main line ${i} edited in version ${version}` : `main line ${i} is the same in every version of this file`)).join('\n');
  const base = Buffer.from(text(112)), target = Buffer.from(text(75));
  for (let shift = 0; shift < 16; shift++) {
    const pad = Buffer.alloc(shift, 'A');
    const delta = roundTrip(Buffer.concat([pad, base]), Buffer.concat([pad, target]));
    // Eleven edited lines, each a copy and a two-byte insert: git's delta is 95 bytes.
    assert.ok(delta.length <= 120, `shifted by ${shift}: ${delta.length} bytes`);
  }
});

test('the sampling that gives up on unrelated targets still lets one through that shares half of itself in pieces', () => {
  const rng = generator(7);
  const base = rng.bytes(64 * 1024);
  assert.equal(createDelta(base, rng.bytes(64 * 1024), 32 * 1024), null);
  // One that shares half of itself, spread in pieces, is still found.
  const half = Buffer.concat(Array.from({ length: 64 }, (_, i) => (i % 2 ? rng.bytes(512) : base.subarray(i * 1024, i * 1024 + 512))));
  assert.ok(createDelta(base, half, half.length));
});
