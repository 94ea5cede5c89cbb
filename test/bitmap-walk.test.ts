// BitmapWalk against git: for tips that are branches, ranges, tags (of commits, of tags, of trees,
// of blobs), trees, and commits the bitmap does not know (a second pack, loose objects), the objects
// it finds are exactly `git rev-list --objects <include> --not <exclude>`. Objects of the bitmapped
// pack come back as positions, the others as extra entries with git's type; bitmapped commits are
// answered without reading history (counted reads). A missing or foreign bitmap means no walk.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fromHex, toHex } from '../src/core/oid.js';
import { typeCode } from '../src/object/type.js';
import { BitmapWalk, type BitmapObjects } from '../src/packing/bitmap/index.js';
import { Repository } from '../src/repository/repository.js';
import { buildBitmapRepo, type BitmapRepo } from './bitmap-walk-fixture.js';
import { git, rmrf, tsgit } from './helpers.js';

let repo: BitmapRepo;

before(() => { repo = buildBitmapRepo(); });
after(() => rmrf(repo.dir));

function open(dir = repo.dir): { r: Repository; walk: BitmapWalk } {
  const r = new Repository(dir, null);
  const walk = BitmapWalk.open(r);
  assert.ok(walk, `a usable bitmap in ${dir}`);
  return { r, walk };
}

function ids(names: string[]): Uint8Array[] {
  return names.map(n => fromHex(repo.rev(n))!);
}

/** Every id of the answer, sorted; checks that positions are in the pack and extras are not. */
function listed(res: BitmapObjects, dir = repo.dir): string[] {
  const out: string[] = [];
  res.positions.forEach(pos => out.push(toHex(res.pack.bitmap.oidAt(pos))));
  assert.equal(res.positions.last() < res.pack.index.count, true, 'positions stay inside the pack');
  if (res.extra.length) {
    const types = git(dir, ['cat-file', '--batch-check=%(objecttype)'], res.extra.map(e => toHex(e.oid)).join('\n') + '\n').split('\n');
    res.extra.forEach((e, i) => {
      assert.equal(res.pack.index.find(e.oid), -1, `${toHex(e.oid)} is outside the bitmapped pack`);
      assert.equal(e.type, typeCode(types[i]!), `type of ${toHex(e.oid)}`);
      out.push(toHex(e.oid));
    });
  }
  assert.equal(res.count(), out.length);
  return out.sort();
}

function revList(args: string[], dir = repo.dir): string[] {
  return git(dir, ['rev-list', '--objects', ...args]).split('\n').filter(Boolean).map(l => l.slice(0, 40)).sort();
}

/**
 * What is reachable from include and not from exclude. git's plain walk lists more (it excludes
 * only what the boundary commits' trees hold); its bitmap walk and ours give exactly this, and
 * git's --use-bitmap-index must agree.
 */
function expected(include: string[], exclude: string[], walk: BitmapWalk, dir = repo.dir): string[] {
  const minus = new Set(exclude.length ? revList(exclude, dir) : []);
  const exact = revList(include, dir).filter(id => !minus.has(id));
  // git walks instead when no excluded tip is in the bitmapped pack.
  if (walk.reachableIfCovered(ids(include), ids(exclude))) {
    assert.deepEqual(revList(['--use-bitmap-index', ...include, '--not', ...exclude], dir), exact, 'git\'s bitmap walk');
  }
  return exact;
}

const CASES: { include: string[]; exclude: string[] }[] = [
  { include: ['main'], exclude: [] },
  { include: ['main~7'], exclude: [] }, // in the bitmapped pack, before the second pack
  { include: ['main'], exclude: ['main~10'] },
  { include: ['side60'], exclude: ['main~40'] },
  { include: ['v1-nested'], exclude: [] },
  { include: ['treetag', 'blobtag'], exclude: [] },
  { include: ['loosetreetag', 'looseblobtag', 'loosenested'], exclude: [] },
  { include: ['loose'], exclude: ['main'] },
  { include: ['old-fork'], exclude: ['main~7'] },
  { include: ['main', 'old-fork', 'v2'], exclude: ['v1', 'light'] },
  { include: ['main'], exclude: ['main~8^{tree}'] },
  { include: ['main^{tree}'], exclude: ['main~1^{tree}'] },
  { include: ['main~30'], exclude: ['main'] },
  { include: ['v2'], exclude: ['main~3', 'loose'] },
];

test('the objects BitmapWalk finds are the ones git rev-list --objects lists', () => {
  const { r, walk } = open();
  try {
    for (const c of CASES) {
      const res = walk.reachable(ids(c.include), ids(c.exclude));
      assert.deepEqual(listed(res), expected(c.include, c.exclude, walk), `${c.include.join(' ')} --not ${c.exclude.join(' ')}`);
      if (!c.exclude.length) {
        assert.equal(res.excluded, null);
        continue;
      }
      const excluded: string[] = [];
      res.excluded!.forEach(pos => excluded.push(toHex(res.pack.bitmap.oidAt(pos))));
      const packed = revList(c.exclude).filter(id => res.pack.index.find(fromHex(id)!) >= 0);
      assert.deepEqual(excluded.sort(), packed, `what ${c.exclude.join(' ')} reach in the pack`);
    }
  } finally {
    r.close();
  }
});

test('--all: every ref and HEAD, with extra objects from the second pack and loose ones', () => {
  const { r, walk } = open();
  try {
    const refs = git(repo.dir, ['for-each-ref', '--format=%(objectname)']).split('\n').filter(Boolean).map(h => fromHex(h)!);
    const res = walk.reachable(refs, []);
    assert.deepEqual(listed(res), revList(['--all']));
    assert.ok(res.extra.length > 20, 'objects outside the bitmapped pack are part of the answer');
    // Commits-only answers list the same commits.
    const commits = walk.reachable(refs, [], { objects: false });
    const onlyCommits = (b: BitmapObjects) => {
      const out: string[] = [];
      b.positions.forEach(p => { if (b.pack.bitmap.typeBitmaps.commits.has(p)) out.push(toHex(b.pack.bitmap.oidAt(p))); });
      for (const e of b.extra) if (e.type === 1) out.push(toHex(e.oid));
      return out.sort();
    };
    assert.deepEqual(onlyCommits(commits), onlyCommits(res));
    assert.deepEqual(onlyCommits(res), git(repo.dir, ['rev-list', '--all']).split('\n').filter(Boolean).sort());
  } finally {
    r.close();
  }
});

test('a bitmapped commit is answered from its bitmap, without reading history', () => {
  const { r, walk } = open();
  try {
    const bitmap = walk.pack.bitmap;
    const tip = toHex(bitmap.index.oid(bitmap.commits()[0]!));
    const tipBits = bitmap.bitmapFor(fromHex(tip)!)!;
    let reads = 0;
    const read = r.odb.read.bind(r.odb);
    r.odb.read = (oid, off) => { reads++; return read(oid, off); };
    const res = walk.reachable([fromHex(tip)!], []);
    assert.equal(reads, 0, 'no object read for a commit with a bitmap');
    assert.ok(res.positions.equals(tipBits));
    assert.deepEqual(listed(res), revList([tip]));
    // main is one loose commit and six second-pack commits past a bitmapped one: only those are read.
    reads = 0;
    const main = walk.reachable(ids(['main']), []);
    assert.deepEqual(listed(main), revList(['main']));
    const walked = Number(git(repo.dir, ['rev-list', '--count', '--objects', 'main', '--not', 'main~7']).trim());
    assert.ok(reads > 0 && reads <= walked, `read ${reads} objects, at most the ${walked} objects newer than the bitmapped pack`);
    const total = Number(git(repo.dir, ['rev-list', '--count', '--objects', 'main']).trim());
    assert.ok(walked * 4 < total, 'the walk is a small part of the history');
  } finally {
    r.close();
  }
});

test('excluded tips are "already seen": history behind them is neither walked nor listed', () => {
  const { r, walk } = open();
  try {
    assert.equal(walk.reachableIfCovered(ids(['main']), ids(['main~10'])) !== null, true);
    assert.equal(walk.reachableIfCovered(ids(['main']), ids(['main'])) !== null, false, 'main is a loose commit');
    assert.equal(walk.reachableIfCovered(ids(['main']), ids(['loosenested'])) !== null, false, 'neither the tags nor the tree are packed');
    assert.equal(walk.reachableIfCovered(ids(['main']), ids(['v2'])) !== null, false);
    assert.equal(walk.reachableIfCovered(ids(['main']), ids(['v2', 'v1'])) !== null, true);
    const res = walk.reachable(ids(['main']), ids(['main']));
    assert.equal(res.count(), 0);
    const none = walk.reachable([], ids(['main']));
    assert.equal(none.count(), 0);
  } finally {
    r.close();
  }
});

test('bitmaps tsgit writes give the same answers', () => {
  const copy = `${repo.dir}-ours`;
  fs.cpSync(repo.dir, copy, { recursive: true });
  try {
    const res = tsgit(copy, ['repack', '-a', '-d', '-b', '-q']);
    assert.equal(res.status, 0, res.stderr.toString());
    const { r, walk } = open(copy);
    try {
      assert.equal(walk.reachable(ids(['main']), []).extra.length, 0, 'everything is in the new pack');
      for (const c of CASES.slice(0, 6)) {
        const got = walk.reachable(ids(c.include), ids(c.exclude));
        assert.deepEqual(listed(got, copy), expected(c.include, c.exclude, walk, copy));
      }
    } finally {
      r.close();
    }
  } finally {
    rmrf(copy);
  }
});

test('no bitmap, or only a bitmap of another pack: no bitmap walk; a broken one is passed over', () => {
  const copy = `${repo.dir}-nobitmap`;
  fs.cpSync(repo.dir, copy, { recursive: true });
  try {
    const dir = path.join(copy, 'objects', 'pack');
    const bitmap = fs.readdirSync(dir).find(f => f.endsWith('.bitmap'))!;
    const other = fs.readdirSync(dir).find(f => f.endsWith('.pack') && !bitmap.startsWith(f.slice(0, -5)))!;
    // A broken bitmap on the other pack, which comes first (newest), is passed over for the good one.
    const later = new Date(Date.now() + 3600_000);
    fs.utimesSync(path.join(dir, other), later, later);
    fs.writeFileSync(path.join(dir, other.replace(/\.pack$/, '.bitmap')), fs.readFileSync(path.join(dir, bitmap)).subarray(0, 100));
    const r0 = new Repository(copy, null);
    try {
      const w = BitmapWalk.open(r0);
      assert.ok(w && w.pack.file.path.endsWith(bitmap.replace(/\.bitmap$/, '.pack')), 'the readable bitmap is used');
    } finally {
      r0.close();
    }
    fs.renameSync(path.join(dir, bitmap), path.join(dir, other.replace(/\.pack$/, '.bitmap')));
    const r = new Repository(copy, null);
    try {
      const why = BitmapWalk.tryOpen(r);
      assert.ok(why instanceof Error && /belongs to another pack/.test(why.message), String(why));
      assert.equal(BitmapWalk.open(r), null);
    } finally {
      r.close();
    }
    fs.rmSync(path.join(dir, other.replace(/\.pack$/, '.bitmap')));
    const r2 = new Repository(copy, null);
    try {
      assert.equal(BitmapWalk.tryOpen(r2), null);
    } finally {
      r2.close();
    }
  } finally {
    rmrf(copy);
  }
});
