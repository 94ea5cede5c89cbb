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

/** `base` with random replacements, insertions and deletions. */
function edit(base: Buffer, edits: number): Buffer {
  let out = Buffer.from(base);
  for (let i = 0; i < edits; i++) {
    const at = crypto.randomInt(out.length + 1);
    const kind = crypto.randomInt(3);
    const len = 1 + crypto.randomInt(40);
    if (kind === 0) out = Buffer.concat([out.subarray(0, at), crypto.randomBytes(len), out.subarray(at)]);
    else if (kind === 1) out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + len))]);
    else out = Buffer.concat([out.subarray(0, at), crypto.randomBytes(len), out.subarray(Math.min(out.length, at + len))]);
  }
  return out;
}

test('a delta between two versions rebuilds the new one, and is small', () => {
  for (let round = 0; round < 50; round++) {
    const base = crypto.randomBytes(200 + crypto.randomInt(5000));
    const target = edit(base, 1 + crypto.randomInt(6));
    const delta = roundTrip(base, target);
    assert.ok(delta.length < target.length / 2, `${delta.length} bytes for a ${target.length}-byte target`);
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
  roundTrip(crypto.randomBytes(1000), Buffer.alloc(0));
  roundTrip(crypto.randomBytes(1000), crypto.randomBytes(1000), 2000);
  roundTrip(Buffer.alloc(5000, 'ab'), Buffer.alloc(7000, 'ab'));
});

test('gives up when the delta would pass the size it is allowed', () => {
  const base = crypto.randomBytes(3000);
  assert.equal(createDelta(base, crypto.randomBytes(3000), 1400), null);
  const target = edit(base, 3);
  const full = roundTrip(base, target);
  assert.equal(createDelta(base, target, full.length - 1), null);
  assert.deepEqual(Buffer.from(createDelta(base, target, full.length)!), full);
  assert.equal(createDelta(base, target, 0), null);
});
