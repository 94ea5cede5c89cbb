// core/zlib.ts's reusable Deflater, which the pack writer compresses with: each call must give the
// very stream zlib.deflateSync gives at that level, whatever came before it on the same handle
// (reset really resets), including the empty input and data that does not compress (the output
// bound). Level 0 only stores, in blocks sized by the output space, so there the stream need only
// inflate back to the input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { Deflater, deflaterFor } from '../src/core/zlib.js';

const inputs = [
  Buffer.alloc(0),
  Buffer.from('tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 0 +0000\n\nmsg\n'),
  crypto.randomBytes(300 * 1024),
  Buffer.alloc(200 * 1024, 'abc'),
  crypto.randomBytes(17),
];

for (const level of [zlib.constants.Z_DEFAULT_COMPRESSION, 0, 1, 9]) {
  test(`Deflater at level ${level} writes what deflateSync writes, call after call`, () => {
    const d = new Deflater(level);
    for (const data of [...inputs, ...inputs.slice().reverse()]) {
      const out = Buffer.from(d.deflate(data));
      if (level !== 0) assert.deepEqual(out, zlib.deflateSync(data, { level }), `${data.length} bytes`);
      assert.deepEqual(zlib.inflateSync(out), data);
    }
  });
}

test('deflaterFor keeps one Deflater per level', () => {
  assert.equal(deflaterFor(6), deflaterFor(6));
  assert.notEqual(deflaterFor(6), deflaterFor(1));
});
