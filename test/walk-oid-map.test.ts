// OidMap, the id table every walk interns objects in: ids that agree in their first words (the
// hash) must still be told apart, indices are dense and stable across growth, keys hold the ids.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { OidMap } from '../src/walk/oid-map.js';

test('ids sharing leading bytes stay distinct through growth, with dense stable indices', () => {
  const map = new OidMap(4);
  const ids: Buffer[] = [];
  for (let i = 0; i < 5000; i++) {
    const id = crypto.randomBytes(20);
    // Groups of ids equal in their first 16 bytes (every word but the last) and in the first 4.
    if (i % 3 === 1) ids[i - 1]!.copy(id, 0, 0, 16);
    if (i % 3 === 2) ids[i - 2]!.copy(id, 0, 0, 4);
    ids.push(id);
  }
  // Each id is stored at an offset inside a larger buffer, as tree entries are.
  const host = Buffer.alloc(7 + 20 * ids.length);
  ids.forEach((id, i) => id.copy(host, 7 + 20 * i));
  ids.forEach((_, i) => assert.equal(map.addOrGet(host, 7 + 20 * i), ~i, `new id ${i}`));
  assert.equal(map.size, ids.length);
  ids.forEach((id, i) => {
    assert.equal(map.addOrGet(host, 7 + 20 * i), i, `known id ${i}`);
    assert.equal(map.get(id), i);
    assert.ok(Buffer.from(map.keys.subarray(20 * i, 20 * i + 20)).equals(id), `keys holds id ${i}`);
  });
  const absent = Buffer.from(ids[1]!);
  absent[19] ^= 1;
  assert.equal(map.get(absent), -1, 'an id differing only in its last byte is not found');
  assert.equal(map.get(Buffer.alloc(20)), -1);
});
