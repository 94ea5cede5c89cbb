// The first pass's ring (src/packing/index-pack/first-pass-ring.ts): what the parser queues
// reaches the consumer for the right rows, a full ring or queue sends the object back to the
// parser, and objects never wrap around the ring's end. The consumer runs here on this thread, after close(),
// as it would on a worker; index-pack's own tests run it across threads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { FirstPassRingWriter, MAX_OBJECT, consumeFirstPassRing } from '../src/packing/index-pack/first-pass-ring.js';
import { sha1 } from '../src/core/hash.js';

const RING = MAX_OBJECT * 8;

/** A consumer that hashes each job into its row of `ids`, as the stream resolver does with whole objects. */
function hashInto(ids: Uint8Array) {
  return (i: number, data: Uint8Array, at: number, length: number): void => { ids.set(sha1(data.subarray(at, at + length)), i * 20); };
}

function queue(ring: FirstPassRingWriter, i: number, content: Buffer): boolean {
  const at = ring.reserve(content.length + 1);
  if (at < 0) return false;
  content.copy(ring.bytes, at);
  ring.publish(i, content.length);
  return true;
}

test('queued objects are hashed into their own rows', () => {
  const ring = new FirstPassRingWriter();
  const contents = Array.from({ length: 50 }, (_, i) => crypto.randomBytes(100 + i * 37));
  contents.forEach((c, i) => assert.ok(queue(ring, i * 2, c)));
  ring.close();
  const ids = new Uint8Array(100 * 20);
  assert.equal(consumeFirstPassRing(ring.buffers, hashInto(ids)), 50);
  contents.forEach((c, i) => {
    assert.deepEqual(Buffer.from(ids.subarray(i * 40, i * 40 + 20)), sha1(c), `row ${i * 2}`);
    assert.ok(ids.subarray(i * 40 + 20, i * 40 + 40).every(b => b === 0), `row ${i * 2 + 1} untouched`);
  });
});

test('a full ring refuses until the consumer frees it, and an object that would wrap starts it again', () => {
  const ring = new FirstPassRingWriter();
  assert.equal(ring.bytes.length, RING);
  assert.equal(ring.reserve(MAX_OBJECT + 1), -1, 'larger than MAX_OBJECT');
  // Fill all but a little of the ring with objects of MAX_OBJECT - 1 bytes (each reserves MAX_OBJECT).
  const big = Array.from({ length: 7 }, () => crypto.randomBytes(MAX_OBJECT - 1));
  big.forEach((c, i) => assert.ok(queue(ring, i, c)));
  const small = crypto.randomBytes(1000);
  assert.ok(queue(ring, 7, small), 'room left at the end');
  // What is left at the end is less than MAX_OBJECT, and the start is not free yet.
  assert.equal(ring.reserve(MAX_OBJECT), -1);
  // Hash what is queued: the ring is free again (the consumer returns after close, so use a second ring for more).
  ring.close();
  const ids = new Uint8Array(16 * 20);
  assert.equal(consumeFirstPassRing(ring.buffers, hashInto(ids)), 8);
  big.forEach((c, i) => assert.deepEqual(Buffer.from(ids.subarray(i * 20, i * 20 + 20)), sha1(c)));
  assert.deepEqual(Buffer.from(ids.subarray(140, 160)), sha1(small));
  // Now an object that does not fit before the end goes to the start.
  assert.equal(ring.reserve(MAX_OBJECT), 0);
});

test('a reservation that is not published is made again in the same place', () => {
  const ring = new FirstPassRingWriter();
  const first = ring.reserve(500);
  assert.equal(ring.reserve(500), first);
  ring.publish(0, 400);
  assert.equal(ring.reserve(10), first + 500, 'the next starts after all that was reserved');
});

test('a full queue refuses too', () => {
  const ring = new FirstPassRingWriter();
  let queued = 0;
  while (queue(ring, queued, Buffer.alloc(1, queued & 0xff))) queued++;
  assert.ok(queued > 1000 && queued * 2 < RING, `${queued} one-byte objects, stopped by the queue, not the bytes`);
  ring.close();
  const ids = new Uint8Array(queued * 20);
  assert.equal(consumeFirstPassRing(ring.buffers, hashInto(ids)), queued);
  assert.deepEqual(Buffer.from(ids.subarray((queued - 1) * 20, queued * 20)), sha1(Buffer.alloc(1, (queued - 1) & 0xff)));
});

test('a worker that fails while taking the ring fails the caller, with its reason', async () => {
  const { ResolverThreads } = await import('../src/packing/index-pack/threads.js');
  const { ObjectTable } = await import('../src/packing/index-pack/tables.js');
  const threads = new ResolverThreads();
  try {
    threads.spawn(1);
    const ring = new FirstPassRingWriter();
    const object = Buffer.from('blob 5\0hello');
    // Row 3 of a table with no rows yet: the worker's write of its id is out of bounds.
    assert.ok(queue(ring, 3, object));
    ring.close();
    await assert.rejects(threads.stream({
      ring: ring.buffers, table: new ObjectTable(1).shared(), name: 'test', packPath: '/nonexistent', maxDepth: 50, cacheLimit: 1 << 16,
      strict: null, idSlots: null, indexCapacity: 0, parentless: null,
    }), /out of bounds|range/i);
  } finally {
    await threads.close();
  }
});
