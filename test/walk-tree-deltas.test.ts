// The walk skips tree entries that a delta copied whole from a tree it has listed (see
// src/walk/tree-layouts.ts). These packs are made by hand, with deltas git's packer would never
// write: copies that start inside an entry, copies that end inside one, copies across entry
// boundaries, a base the walk never lists, a base that is the tree's own parent (listed, but not
// to the end), and bases only reachable from excluded commits. Each walk must list exactly what
// `git rev-list --objects` lists, and the well-formed cases must really skip.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { ObjectDatabase } from '../src/odb/database.js';
import { ObjectWalk } from '../src/walk/object-walk.js';
import { applyOps, deltaOf, objectId, writePack, type DeltaOp, type RawEntry } from './pack-builder.js';
import { git, gitBuf, rmrf, tmpDir, tsgit } from './helpers.js';

const COMMIT = 1, TREE = 2, BLOB = 3, OFS_DELTA = 6, REF_DELTA = 7;

interface Entry { mode: string; name: string; id: Buffer }

function entryBytes(e: Entry): Buffer {
  return Buffer.concat([Buffer.from(`${e.mode} ${e.name}\0`), e.id]);
}

function treeBytes(entries: Entry[]): Buffer {
  return Buffer.concat(entries.map(entryBytes));
}

/** Where each entry of a tree starts, and the tree's end. */
function starts(entries: Entry[]): number[] {
  const out = [0];
  for (const e of entries) out.push(out[out.length - 1]! + entryBytes(e).length);
  return out;
}

/** The objects of one hand-made pack, in pack order (an OFS_DELTA's base must come first). */
class PackPlan {
  readonly entries: RawEntry[] = [];

  blob(text: string): Buffer {
    const data = Buffer.from(text);
    this.entries.push({ type: BLOB, data });
    return objectId(BLOB, data);
  }

  /** `count` blobs and the tree entries naming them (sorted names, as git writes them). */
  files(prefix: string, count: number): Entry[] {
    const out: Entry[] = [];
    for (let i = 0; i < count; i++) out.push({ mode: '100644', name: `${prefix}${String(i).padStart(3, '0')}`, id: this.blob(`${prefix} ${i}\n`) });
    return out;
  }

  tree(entries: Entry[]): Tree {
    const data = treeBytes(entries);
    this.entries.push({ type: TREE, data });
    return { id: objectId(TREE, data), data, index: this.entries.length - 1 };
  }

  /** A tree stored as a delta against `base`: OFS_DELTA, or REF_DELTA with `byId`. */
  delta(base: Tree, ops: DeltaOp[], byId = false): Tree {
    const data = applyOps(base.data, ops);
    const id = objectId(TREE, data);
    const d = deltaOf(base.data.length, ops);
    this.entries.push(byId ? { type: REF_DELTA, baseOid: base.id, data: d, oid: id } : { type: OFS_DELTA, base: base.index, data: d, oid: id });
    return { id, data, index: this.entries.length - 1 };
  }

  commit(tree: Tree, parents: Buffer[], time: number): Buffer {
    const data = Buffer.from(`tree ${tree.id.toString('hex')}\n${parents.map(p => `parent ${p.toString('hex')}\n`).join('')}` +
      `author A U Thor <author@example.com> ${time} +0000\ncommitter C O Mitter <committer@example.com> ${time} +0000\n\nc${time}\n`);
    this.entries.push({ type: COMMIT, data });
    return objectId(COMMIT, data);
  }
}

interface Tree { id: Buffer; data: Buffer; index: number }

let dirs: string[] = [];
afterEach(() => { for (const d of dirs) rmrf(d); dirs = []; });

/** A bare repository holding the pack, with refs/heads/<name> for each of `refs`. */
function repoWith(plan: PackPlan, refs: Record<string, Buffer>): string {
  const dir = tmpDir('tsgit-tree-deltas-');
  dirs.push(dir);
  git(dir, ['init', '-q', '--bare', '.']);
  writePack(path.join(dir, 'objects', 'pack'), plan.entries);
  for (const [name, id] of Object.entries(refs)) fs.writeFileSync(path.join(dir, 'refs', 'heads', name), `${id.toString('hex')}\n`);
  // git must be able to read every reachable object, deltas included.
  git(dir, ['fsck', '--connectivity-only', '--no-dangling']);
  return dir;
}

const TSGIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/**
 * `rev-list --objects <args>` through tsgit's CLI and through the library's walk (`tips`: the same
 * revisions, as ids to add, excluded or not), both checked against git. Returns how many entries
 * the library's walk skipped.
 */
function listBoth(dir: string, args: string[], tips: [Buffer, boolean][]): number {
  const expected = gitBuf(dir, ['rev-list', '--objects', ...args]).toString();
  // The tree worker plans the same skips on its side (walks without exclusions use it).
  for (const worker of ['off', 'on']) {
    const got = tsgit(dir, ['rev-list', '--objects', ...args], undefined, { ...TSGIT_ENV, TSGIT_TREE_WORKER: worker });
    assert.equal(got.status, 0, got.stderr.toString());
    assert.equal(got.stdout.toString(), expected, `tsgit rev-list --objects ${args.join(' ')} (tree worker ${worker}) differs from git`);
  }
  const odb = new ObjectDatabase(path.join(dir, 'objects'));
  try {
    const walk = new ObjectWalk(odb);
    for (const [id, exclude] of tips) walk.add(id, '', exclude);
    let lines = '';
    const hex = (ids: Uint8Array, off: number) => Buffer.from(ids.subarray(off, off + 20)).toString('hex');
    walk.enumerate({
      commit: (ids, off) => { lines += `${hex(ids, off)}\n`; },
      object: (_t, ids, off, p, len) => { lines += `${hex(ids, off)} ${Buffer.from(p.subarray(0, len)).toString()}\n`; },
    });
    assert.equal(lines, expected, `the library's walk of ${args.join(' ')} differs from git`);
    return walk.layouts.skipped;
  } finally {
    odb.close();
  }
}

describe('the walk over hand-made tree deltas lists what git lists', () => {
  test('whole entries copied from a listed tree are skipped; inserted ones are listed', () => {
    const p = new PackPlan();
    const files = p.files('f', 40);
    const fresh = p.blob('a new file\n');
    const newer = p.tree(files);
    const at = starts(files);
    // The older version drops entry 10 and adds one after entry 20. Entry 5 is copied in part
    // and inserted in part: an entry that straddles an insert is parsed.
    const older = p.delta(newer, [
      { copy: [0, at[5]! + 7] }, { insert: newer.data.subarray(at[5]! + 7, at[6]) }, { copy: [at[6]!, at[10]! - at[6]!] },
      { copy: [at[11]!, at[21]! - at[11]!] },
      { insert: entryBytes({ mode: '100644', name: 'f020x', id: fresh }) },
      { copy: [at[21]!, at[40]! - at[21]!] },
    ]);
    const c1 = p.commit(older, [], 1000), c2 = p.commit(newer, [c1], 2000);
    const dir = repoWith(p, { main: c2 });
    // Entries 0-4, 6-9, 11-20 and 21-39 of the older tree.
    assert.equal(listBoth(dir, ['--all'], [[c2, false]]), 38);
  });

  test('a layout kept before the layouts outgrew their first arena still plans a later delta', () => {
    // Three wide trees listed first fill more than the arena a walk starts with (8,192 words);
    // the oldest commit's tree is a delta against the first of them, listed before the arena grew.
    const p = new PackPlan();
    const first = p.tree(p.files('a', 3000));
    const second = p.tree(p.files('b', 3000));
    const third = p.tree(p.files('c', 3000));
    const last = p.delta(first, [{ copy: [0, first.data.length] }, { insert: entryBytes({ mode: '100644', name: 'zz', id: p.blob('zz\n') }) }]);
    const c1 = p.commit(last, [], 1000), c2 = p.commit(third, [c1], 2000), c3 = p.commit(second, [c2], 3000), c4 = p.commit(first, [c3], 4000);
    const dir = repoWith(p, { main: c4 });
    assert.equal(listBoth(dir, ['--all'], [[c4, false]]), 3000);
  });

  test('copies that start inside an entry, end inside one or run across entries are parsed', () => {
    const p = new PackPlan();
    const files = p.files('g', 12);
    const extra = p.blob('only in the older tree\n');
    const newer = p.tree(files);
    const at = starts(files);
    const e3 = files[3]!, e7 = files[7]!;
    const older = p.delta(newer, [
      // Entry 0 from its second byte: "00644 g000" is an entry too (git reads mode 0644 as a
      // gitlink), over the same id; entries 1 and 2 follow it whole.
      { copy: [1, at[3]! - 1] },
      // Entry 3's mode and name, then an id that is not entry 3's: the copy starts at a boundary
      // but ends inside the entry.
      { copy: [at[3]!, at[4]! - at[3]! - 20] }, { insert: extra },
      // Entry 4 from the middle of its mode, after inserted digits: the same bytes, assembled; the
      // copy runs on into entry 7's id, which ends in inserted bytes.
      { insert: Buffer.from('1006') }, { copy: [at[4]! + 4, at[7]! + 22 - at[4]! - 4] }, { insert: e7.id.subarray(10) },
      { copy: [at[8]!, at[12]! - at[8]!] },
    ]);
    assert.ok(older.data.includes(entryBytes({ mode: e3.mode, name: e3.name, id: extra })));
    const c1 = p.commit(older, [], 1000), c2 = p.commit(newer, [c1], 2000);
    const dir = repoWith(p, { main: c2 });
    // Whole copies from boundaries: entries 1-2, 5-6 and 8-11.
    assert.equal(listBoth(dir, ['--all'], [[c2, false]]), 8);
  });

  test('an entry copied from inside a base entry names what those bytes name, listed or not', () => {
    const p = new PackPlan();
    const files = p.files('s', 8);
    const hidden = p.blob('named only by a gitlink of the newer tree\n');
    // The newer tree has a gitlink (not listed) whose name ends in the bytes of a file entry's
    // mode and name: copied from there, the entry is a file entry naming the gitlink's id, which
    // the walk has not listed. Only the entries after it are whole entries of the base.
    const link: Entry = { mode: '160000', name: 'q100644 t', id: hidden };
    const newer = p.tree([...files.slice(0, 4), link, ...files.slice(4)]);
    const at = starts([...files.slice(0, 4), link, ...files.slice(4)]);
    const inside = at[4]! + '160000 q'.length;
    const older = p.delta(newer, [{ copy: [0, at[4]!] }, { copy: [inside, at[9]! - inside] }]);
    assert.ok(older.data.includes(entryBytes({ mode: '100644', name: 't', id: hidden })));
    const c1 = p.commit(older, [], 1000), c2 = p.commit(newer, [c1], 2000);
    const dir = repoWith(p, { main: c2 });
    assert.ok(gitBuf(dir, ['rev-list', '--objects', '--all']).toString().includes(`${hidden.toString('hex')} t\n`));
    // Entries 0-3 and 4-7 of the older tree (the first copy and the second's continues each other
    // in the result, not in the base: they stay two runs).
    assert.equal(listBoth(dir, ['--all'], [[c2, false]]), 8);
  });

  test('modes git reads as gitlinks (0644, 140000) name nothing the walk lists', () => {
    const p = new PackPlan();
    const files = p.files('o', 3);
    const odd = p.blob('named only with odd modes\n'), sock = p.blob('a socket mode\n');
    const tree = p.tree([...files, { mode: '644', name: 'p', id: odd }, { mode: '140000', name: 'q', id: sock }]);
    const c = p.commit(tree, [], 1000);
    const dir = repoWith(p, { main: c });
    assert.equal(listBoth(dir, ['--all'], [[c, false]]), 0);
    assert.ok(!gitBuf(dir, ['rev-list', '--objects', '--all']).toString().includes(odd.toString('hex')));
  });

  test('a base the walk has not listed, or lists only later, is no base', () => {
    const p = new PackPlan();
    const hidden = p.files('h', 20);
    // A tree no commit reaches; the listed tree copies all but its last entry whole.
    const unreachable = p.tree(hidden);
    const copyAll = p.delta(unreachable, [{ copy: [0, starts(hidden)[19]!] }, { insert: entryBytes({ mode: '100644', name: 'zz', id: hidden[0]!.id }) }]);
    // A newer tree stored as a delta against an older commit's tree, which is listed after it.
    const later = p.files('k', 20);
    const olderTree = p.tree(later);
    const newerTree = p.delta(olderTree, [{ copy: [0, olderTree.data.length] }, { insert: entryBytes({ mode: '100644', name: 'zz', id: hidden[1]!.id }) }]);
    const c1 = p.commit(olderTree, [], 1000), c2 = p.commit(copyAll, [c1], 2000), c3 = p.commit(newerTree, [c2], 3000);
    const dir = repoWith(p, { main: c3 });
    assert.equal(listBoth(dir, ['--all'], [[c3, false]]), 0);
  });

  test('a tree stored as a delta against its own parent tree is parsed: the parent is not listed to the end yet', () => {
    const p = new PackPlan();
    const files = p.files('x', 10);
    const first = p.blob('first\n');
    // The parent lists its subtree first ("a" sorts before "x..."), and the subtree holds its
    // parent's file entries, copied whole: they must be listed under a/.
    const subEntries: Entry[] = [{ mode: '100644', name: 'a0', id: first }, ...files];
    const sub = objectId(TREE, treeBytes(subEntries));
    const parent = p.tree([{ mode: '40000', name: 'a', id: sub }, ...files]);
    const skip = entryBytes({ mode: '40000', name: 'a', id: sub }).length;
    const subTree = p.delta(parent, [{ insert: entryBytes(subEntries[0]!) }, { copy: [skip, parent.data.length - skip] }]);
    assert.ok(subTree.id.equals(sub));
    const c = p.commit(parent, [], 1000);
    const dir = repoWith(p, { main: c });
    assert.equal(listBoth(dir, ['--all'], [[c, false]]), 0);
  });

  test('exclusions: entries copied from a listed tree are skipped whether shown or excluded', () => {
    const p = new PackPlan();
    const files = p.files('m', 30);
    const shared = p.blob('in the excluded commit and a newer one\n');
    const own = p.blob('only in c2\n');
    const at = starts(files);
    // c3's tree is whole; c2's and c1's are deltas against it, c2's by id (REF_DELTA). c2 and c1
    // both add `shared`; c1 is excluded, so `shared` is not listed.
    const t3 = p.tree(files);
    const t2 = p.delta(t3, [{ copy: [0, at[15]!] }, { insert: entryBytes({ mode: '100644', name: 'm015x', id: shared }) },
      { insert: entryBytes({ mode: '100644', name: 'm015y', id: own }) }, { copy: [at[15]!, at[30]! - at[15]!] }], true);
    const t1 = p.delta(t3, [{ copy: [0, at[15]!] }, { insert: entryBytes({ mode: '100644', name: 'm015x', id: shared }) },
      { copy: [at[16]!, at[30]! - at[16]!] }]);
    const c1 = p.commit(t1, [], 1000), c2 = p.commit(t2, [c1], 2000), c3 = p.commit(t3, [c2], 3000);
    const dir = repoWith(p, { main: c3, old: c1 });
    assert.equal(listBoth(dir, ['--all'], [[c3, false], [c1, false]]), 30 + 29);
    // c1's tree is marked uninteresting first; t3 lists what c1 lacks, then t2 skips all it copied.
    assert.equal(listBoth(dir, ['main', '^old'], [[c3, false], [c1, true]]), 30);
    assert.equal(listBoth(dir, ['main', '--not', 'old^{tree}'], [[c3, false], [t1.id, true]]), 30);
    // Without c3, c2's tree has no listed base.
    assert.equal(listBoth(dir, [c2.toString('hex'), '^old'], [[c2, false], [c1, true]]), 0);
  });
});
