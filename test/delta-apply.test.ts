// applyDeltaWithSizes with base and result in one arena (copies by copyWithin, as the object
// database's cache arranges) against the same delta applied to separate buffers: the same bytes for
// a good delta, and the same refusal, in the same words, for every bound a hostile delta breaks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDeltaWithSizes, readDeltaSizes } from '../src/pack/delta.js';

function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** A copy instruction with every offset and size byte present. */
function copy(offset: number, size: number): number[] {
  return [0xff, offset & 0xff, (offset >>> 8) & 0xff, (offset >>> 16) & 0xff, (offset >>> 24) & 0xff,
    size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff];
}

function insert(bytes: number[]): number[] {
  return [bytes.length, ...bytes];
}

/** What applying `ops` to `base` gives: the result's bytes, or the error's message. */
function outcome(base: Buffer, resultSize: number, ops: number[], arena: boolean): string {
  const delta = Buffer.from([...varint(base.length), ...varint(resultSize), ...ops]);
  try {
    const sizes = readDeltaSizes(delta, 0, delta.length, 'pack', () => 'test delta');
    if (!arena) return applyDeltaWithSizes(base, delta, sizes, delta.length, 'pack', () => 'test delta').toString('hex');
    // Base at the arena's start, the result well after it, as the cache carves them.
    const space = Buffer.alloc(base.length + resultSize + 4096);
    base.copy(space, 0);
    const inArena = space.subarray(0, base.length);
    const out = space.subarray(base.length + 1000);
    return applyDeltaWithSizes(inArena, delta, sizes, delta.length, 'pack', () => 'test delta', out, 0, space).toString('hex');
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

const base = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 11) & 0xff));

/** Name, result size, instructions, and whether the delta is refused. */
const cases: [string, number, number[], boolean][] = [
  ['copies long and short, and inserts', 300, [...copy(0, 100), ...insert([1, 2, 3]), ...copy(290, 10), ...copy(5, 187)], false],
  ['a copy of the whole base', 300, copy(0, 300), false],
  ['a copy past the base', 50, copy(260, 50), true],
  ['a copy past the result', 20, copy(0, 40), true],
  ['an insert past the result', 2, insert([1, 2, 3]), true],
  ['an insert past the delta', 10, [10, 1, 2], true],
  ['a truncated copy instruction', 10, [0xff, 0], true],
  ['the reserved opcode', 10, [0], true],
  ['a result shorter than declared', 100, copy(0, 90), true],
];

for (const [name, resultSize, ops, refused] of cases) {
  test(`in one arena or apart, the same outcome: ${name}`, () => {
    const apart = outcome(base, resultSize, ops, false);
    assert.equal(outcome(base, resultSize, ops, true), apart);
    if (refused) assert.match(apart, /^error: test delta: /);
    else assert.doesNotMatch(apart, /^error/);
  });
}

test('the copies an arena moves come from the base, not from the bytes around it', () => {
  const space = Buffer.alloc(2048, 0xee);
  base.copy(space, 100);
  const delta = Buffer.from([...varint(300), ...varint(300), ...copy(200, 100), ...copy(0, 200)]);
  const sizes = readDeltaSizes(delta, 0, delta.length, 'pack', () => 'test delta');
  const result = applyDeltaWithSizes(space.subarray(100, 400), delta, sizes, delta.length, 'pack', () => 'test delta',
    space.subarray(1024), 0, space);
  assert.deepEqual(result, Buffer.concat([base.subarray(200), base.subarray(0, 200)]));
});
