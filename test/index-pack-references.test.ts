// --strict's pending references (check.ts): references to objects not resolved yet wait in a set,
// which, before it grows, checks and drops those whose objects have been resolved since. Driven
// here directly, with a table and id index as the resolvers fill them, so that the set grows many
// times: what stays pending must be exactly what is still unresolved, and a reference whose object
// turned out to have another type must be refused when it is dropped.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import { OID_BYTES } from '../src/core/oid.js';
import { ObjectChecker } from '../src/packing/index-pack/check.js';
import { SharedIdIndex } from '../src/packing/index-pack/id-index.js';
import { ObjectTable } from '../src/packing/index-pack/tables.js';

const BLOB = 3, TREE = 2;

/** A table of `n` objects with random ids (none resolved), its id index and a checker over both. */
function setup(n: number): { table: ObjectTable; index: SharedIdIndex; checker: ObjectChecker } {
  const table = new ObjectTable(n);
  table.ensure(n);
  table.ids.set(crypto.randomBytes(n * OID_BYTES));
  const index = new SharedIdIndex(new Int32Array(SharedIdIndex.allocate(n)), table.ids);
  return { table, index, checker: new ObjectChecker({ strict: true }, 'test', index, table) };
}

/** A tree naming objects [from, to) of the table as blobs, in name order. */
function tree(table: ObjectTable, from: number, to: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = from; i < to; i++) {
    parts.push(Buffer.from(`100644 f${String(i).padStart(6, '0')}\0`), Buffer.from(table.ids.subarray(i * OID_BYTES, (i + 1) * OID_BYTES)));
  }
  return Buffer.concat(parts);
}

/** Marks object i resolved with `type`, as a resolver does. */
function resolve(table: ObjectTable, index: SharedIdIndex, i: number, type: number): void {
  table.realType[i] = type;
  index.insert(i);
}

function pendingIds(checker: ObjectChecker): Set<string> {
  const refs = checker.references();
  const out = new Set<string>();
  for (let k = 0; k < refs.count; k++) out.add(Buffer.from(refs.ids.subarray(k * OID_BYTES, (k + 1) * OID_BYTES)).toString('hex'));
  return out;
}

const idOf = (table: ObjectTable, i: number) => Buffer.from(table.ids.subarray(i * OID_BYTES, (i + 1) * OID_BYTES)).toString('hex');
const treeId = Buffer.alloc(OID_BYTES, 0xee);

describe('index-pack --strict pending references', () => {
  it('drops what was resolved since, and keeps exactly what is still unresolved', () => {
    const n = 12000;
    const { table, index, checker } = setup(n);
    // Four trees of 3000 entries; after each, resolve the first two thirds of what it named.
    for (let t = 0; t < 4; t++) {
      checker.check(TREE, tree(table, t * 3000, (t + 1) * 3000), treeId, 0);
      for (let i = t * 3000; i < t * 3000 + 2000; i++) resolve(table, index, i, BLOB);
    }
    const pending = pendingIds(checker);
    const unresolved = new Set<string>();
    for (let t = 0; t < 4; t++) for (let i = t * 3000 + 2000; i < (t + 1) * 3000; i++) unresolved.add(idOf(table, i));
    for (const id of unresolved) assert.ok(pending.has(id), `unresolved ${id} is no longer pending`);
    // Those resolved after the last pruning may still be there, but nothing the trees did not name.
    const named = new Set<string>();
    for (let i = 0; i < n; i++) named.add(idOf(table, i));
    for (const id of pending) assert.ok(named.has(id), `pending ${id} was never referenced`);
    // The set was pruned on the way: far fewer than the 12000 references stay.
    assert.ok(pending.size < 8000, `${pending.size} references still pending`);
  });

  it('refuses, when dropping it, a reference whose object was resolved with another type', () => {
    const { table, index, checker } = setup(6000);
    checker.check(TREE, tree(table, 0, 1000), treeId, 0);
    // Object 10 was named as a blob, and turns out to be a tree.
    resolve(table, index, 10, TREE);
    assert.throws(() => checker.check(TREE, tree(table, 1000, 6000), treeId, 0),
      new RegExp(`object type mismatch at ${idOf(table, 10)}: referenced as a blob, but it is a tree`));
  });
});
