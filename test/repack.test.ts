// tsgit repack -a -d -b against git: the repository git sees afterwards is whole and the same, its
// one pack carries reused deltas, an .idx and .rev byte-identical to git's own index-pack, and a
// bitmap git verifies and uses; kept packs stay; -q is silent.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import zlib from 'node:zlib';
import { toHex } from '../src/core/oid.js';
import type { Bitset } from '../src/pack/bitmap/bitset.js';
import { PackBitmap } from '../src/pack/bitmap/read.js';
import { packNameHashOf } from '../src/pack/name-hash.js';
import { GIT_ENV, git, makeRepo, rmrf, tmpDir, tsgit } from './helpers.js';

function commit(dir: string, file: string, text: string, msg: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
  git(dir, ['add', file]);
  git(dir, ['commit', '-q', '-m', msg]);
}

/**
 * 30 commits packed by git (with deltas), a side branch, an annotated and a lightweight tag, three
 * more commits left loose, one commit only a reflog reaches, and one unreachable loose blob.
 */
function makeFixture(): { dir: string; junk: string } {
  const dir = makeRepo(30);
  git(dir, ['checkout', '-q', '-b', 'side', 'main~4']);
  commit(dir, 'side/a.txt', 'side a\n'.repeat(50), 'side 1');
  commit(dir, 'side/a.txt', 'side a\n'.repeat(51), 'side 2');
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['tag', '-a', '-m', 'release', 'v1', 'main~10']);
  git(dir, ['tag', 'light', 'side']);
  git(dir, ['repack', '-a', '-d', '-q']);
  for (let i = 0; i < 3; i++) commit(dir, 'loose/file.txt', `loose ${i}\n`.repeat(40 + i), `loose ${i}`);
  // History only the reflogs still reach: git's repack keeps it, and fsck checks reflogs.
  commit(dir, 'reset/gone.txt', 'reset away\n', 'reset away');
  git(dir, ['reset', '-q', '--hard', 'HEAD~1']);
  const junk = git(dir, ['hash-object', '-w', '--stdin'], 'unreachable\n').trim();
  return { dir, junk };
}

function countObjects(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of git(dir, ['count-objects', '-v']).trim().split('\n')) {
    const [k, v] = l.split(': ') as [string, string];
    out[k] = Number(v);
  }
  return out;
}

function packDir(dir: string): string {
  return path.join(dir, '.git', 'objects', 'pack');
}

/** git's own check of the bitmap against a walk (it reports on stderr). */
function assertBitmapOk(dir: string): void {
  const r = spawnSync('git', ['rev-list', '--test-bitmap', 'HEAD'], { cwd: dir, env: GIT_ENV });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.match(r.stderr.toString(), /\nOK!\n/);
}

function run(dir: string, args: string[]): void {
  const r = tsgit(dir, args);
  assert.equal(r.status, 0, `tsgit ${args.join(' ')}: ${r.stderr.toString()}`);
  assert.equal(r.stderr.toString(), '', '-q prints nothing');
  assert.equal(r.stdout.toString(), '');
}

test('repack -a -d -b: one pack git finds whole, same objects, reused deltas, a bitmap git verifies and uses', () => {
  const { dir, junk } = makeFixture();
  try {
    const objectsBefore = git(dir, ['rev-list', '--objects', '--all']).split('\n').sort().join('\n');
    const oldPacks = fs.readdirSync(packDir(dir)).filter(n => n.endsWith('.pack'));
    assert.equal(oldPacks.length, 1);
    assert.ok(countObjects(dir).count >= 10, 'loose objects to pack');

    run(dir, ['repack', '-a', '-d', '-b', '-q']);

    const fsck = git(dir, ['fsck', '--full', '--no-dangling', '--strict']);
    assert.equal(fsck, '');
    const c = countObjects(dir);
    assert.equal(c.packs, 1);
    assert.equal(c.count, 1, 'only the unreachable blob stays loose');
    assert.equal(c['prune-packable'], 0);
    assert.ok(fs.existsSync(path.join(dir, '.git', 'objects', junk.slice(0, 2), junk.slice(2))));
    const names = fs.readdirSync(packDir(dir)).sort();
    assert.equal(names.length, 4, names.join(' '));
    const base = names[0]!.replace(/\.[a-z]+$/, '');
    assert.match(base, /^pack-[0-9a-f]{40}$/);
    assert.deepEqual(names, ['bitmap', 'idx', 'pack', 'rev'].map(e => `${base}.${e}`));
    assert.notEqual(`${base}.pack`, oldPacks[0], 'the old pack is gone');
    const packPath = path.join(packDir(dir), `${base}.pack`);
    for (const e of ['pack', 'idx']) {
      assert.equal(fs.statSync(path.join(packDir(dir), `${base}.${e}`)).mode & 0o777, 0o444, `.${e} is read-only`);
    }

    const objectsAfter = git(dir, ['rev-list', '--objects', '--all']).split('\n').sort().join('\n');
    assert.equal(objectsAfter, objectsBefore);
    // tsgit's own walk still agrees with git's, line for line.
    const ours = tsgit(dir, ['rev-list', '--objects', '--all']);
    assert.equal(ours.status, 0, ours.stderr.toString());
    assert.equal(ours.stdout.toString(), git(dir, ['rev-list', '--objects', '--all']));

    // Deltas git stored were reused (ofs-delta), not inflated and stored whole.
    const verify = git(dir, ['verify-pack', '-v', packPath]);
    assert.match(verify, /chain length = 1: \d+ objects?/);
    assert.match(verify, /non delta: \d+ objects/);

    // git's own index-pack writes the same .idx and .rev for this pack.
    const copy = tmpDir();
    try {
      fs.copyFileSync(packPath, path.join(copy, 'p.pack'));
      git(copy, ['index-pack', '--rev-index', 'p.pack']);
      assert.ok(fs.readFileSync(path.join(copy, 'p.idx')).equals(fs.readFileSync(path.join(packDir(dir), `${base}.idx`))), '.idx as git writes it');
      assert.ok(fs.readFileSync(path.join(copy, 'p.rev')).equals(fs.readFileSync(path.join(packDir(dir), `${base}.rev`))), '.rev as git writes it');
    } finally {
      rmrf(copy);
    }

    assertBitmapOk(dir);
    const withBitmap = git(dir, ['rev-list', '--use-bitmap-index', '--objects', '--all'])
      .split('\n').filter(Boolean).map(l => l.slice(0, 40)).sort();
    assert.deepEqual(withBitmap, objectsAfter.split('\n').filter(Boolean).map(l => l.slice(0, 40)).sort());

    // tsgit reads its bitmap back: checksum, hash cache from the walk's paths, each commit's bits.
    const bitmap = PackBitmap.open({ idxPath: path.join(packDir(dir), `${base}.idx`), packPath });
    assert.ok(bitmap);
    bitmap.verifyChecksum();
    assert.ok(bitmap.hasHashCache, 'pack.writeBitmapHashCache defaults to true');
    assert.equal(bitmap.hasLookupTable, false);
    const pathOf = new Map<string, string>();
    const withReflogs = git(dir, ['rev-list', '--objects', '--all', '--reflog']).split('\n').filter(Boolean);
    assert.equal(bitmap.index.count, withReflogs.length, 'the pack holds what refs and reflogs reach');
    for (const l of withReflogs) pathOf.set(l.slice(0, 40), l.slice(41));
    let hashed = 0;
    for (let i = 0; i < bitmap.index.count; i++) {
      const oid = toHex(bitmap.index.oid(i));
      assert.equal(bitmap.nameHash(i), packNameHashOf(pathOf.get(oid) ?? ''), `name hash of ${oid}`);
      if (bitmap.nameHash(i) !== 0) hashed++;
    }
    assert.ok(hashed > 10);
    const commits = bitmap.commits();
    assert.ok(commits.length > 0);
    for (const ci of commits) {
      const oid = toHex(bitmap.index.oid(ci));
      const bits: Bitset = bitmap.bitmapForIndex(ci)!;
      const expected = git(dir, ['rev-list', '--objects', oid]).split('\n').filter(Boolean).length;
      assert.equal(bits.count(), expected, `objects reachable from ${oid}`);
    }
  } finally {
    rmrf(dir);
  }
});

test('repack twice gives the same pack and keeps it; a kept pack stays and its objects stay out', () => {
  const { dir } = makeFixture();
  try {
    run(dir, ['repack', '-a', '-d', '-q']);
    const first = fs.readdirSync(packDir(dir)).sort();
    assert.deepEqual(first.map(n => path.extname(n)), ['.idx', '.pack', '.rev'], 'no bitmap without -b in a non-bare repository');
    run(dir, ['repack', '-ad', '-q']);
    assert.deepEqual(fs.readdirSync(packDir(dir)).sort(), first, 'the same pack, not deleted as redundant');
    assert.equal(git(dir, ['fsck', '--full', '--no-dangling']), '');

    // New history, then its own pack marked .keep.
    for (let i = 0; i < 2; i++) commit(dir, 'kept/k.txt', `kept ${i}\n`, `kept ${i}`);
    const keptPack = git(dir, ['pack-objects', '-q', '--revs', path.join(packDir(dir), 'pack')], 'main~2..main\n').trim();
    fs.writeFileSync(path.join(packDir(dir), `pack-${keptPack}.keep`), '');
    git(dir, ['prune-packed']);
    const keptObjects = git(dir, ['show-index'], fs.readFileSync(path.join(packDir(dir), `pack-${keptPack}.idx`)))
      .split('\n').filter(Boolean).map(l => l.split(' ')[1]!);
    assert.ok(keptObjects.length >= 4);

    run(dir, ['repack', '-a', '-d', '-q']);
    const packs = fs.readdirSync(packDir(dir)).filter(n => n.endsWith('.pack')).sort();
    assert.equal(packs.length, 2);
    assert.ok(packs.includes(`pack-${keptPack}.pack`), 'the kept pack stays');
    const other = packs.find(n => n !== `pack-${keptPack}.pack`)!;
    const inNew = new Set(git(dir, ['show-index'], fs.readFileSync(path.join(packDir(dir), other.replace(/pack$/, 'idx'))))
      .split('\n').filter(Boolean).map(l => l.split(' ')[1]!));
    for (const o of keptObjects) assert.ok(!inNew.has(o), `${o} of the kept pack is not copied`);
    assert.equal(git(dir, ['fsck', '--full', '--no-dangling']), '');

    // A bitmap needs every reachable object in its pack: -b copies the kept objects in too.
    run(dir, ['repack', '-a', '-d', '-b', '-q']);
    const after = fs.readdirSync(packDir(dir)).filter(n => n.endsWith('.pack'));
    assert.equal(after.length, 2);
    assert.ok(after.includes(`pack-${keptPack}.pack`));
    assertBitmapOk(dir);
    assert.equal(git(dir, ['fsck', '--full', '--no-dangling']), '');
  } finally {
    rmrf(dir);
  }
});

test('a bare repository gets a bitmap by default; repack.writeBitmaps=false turns it off; --progress reports, -q does not; no -a is refused', () => {
  const dir = makeRepo(6, { bare: true });
  try {
    run(dir, ['repack', '-a', '-d', '-q']);
    const names = fs.readdirSync(path.join(dir, 'objects', 'pack'));
    assert.equal(names.filter(n => n.endsWith('.bitmap')).length, 1, names.join(' '));
    git(dir, ['config', 'repack.writeBitmaps', 'false']);
    run(dir, ['repack', '-a', '-d', '-q']);
    assert.equal(fs.readdirSync(path.join(dir, 'objects', 'pack')).filter(n => n.endsWith('.bitmap')).length, 0);
    assert.equal(git(dir, ['fsck', '--full', '--no-dangling']), '');
    const loud = tsgit(dir, ['repack', '-a', '--progress']);
    assert.equal(loud.status, 0, loud.stderr.toString());
    const n = git(dir, ['rev-list', '--objects', '--all']).split('\n').filter(Boolean).length;
    // Every object reused as the last repack stored it, its deltas (the search's) included.
    const total = new RegExp(`^Enumerating objects: ${n}, done\\.\\n[^]*\\nTotal ${n} \\(delta (\\d+)\\), reused ${n} \\(delta (\\d+)\\), pack-reused 0\\n$`).exec(loud.stderr.toString());
    assert.ok(total, loud.stderr.toString());
    assert.equal(total[1], total[2]);
    const r = tsgit(dir, ['repack', '-d']);
    assert.equal(r.status, 128);
    assert.match(r.stderr.toString(), /only "repack -a" is supported/);
  } finally {
    rmrf(dir);
  }
});

// A stored entry whose CRC no longer matches its .idx (a byte of its data damaged): git's
// pack-objects says so as it would reuse it, and again as it reads the object afresh (checking
// CRCs, since it writes a pack file), taking another copy, loose or in a second pack, and writing
// it anew; with no other copy it dies. tsgit says what git says and ends as git does.
test('a reused entry that fails its CRC is written afresh from another copy, with git\'s errors; with none, git\'s fatal', () => {
  const base = makeRepo(8);
  const root = tmpDir('tsgit-repack-crc-');
  try {
    git(base, ['repack', '-a', '-d', '-q']);
    const idxName = fs.readdirSync(packDir(base)).find(n => n.endsWith('.idx'))!;
    // The largest whole (undeltified) blob, damaged in the middle of its entry.
    const [id, , , inPack, offset] = git(base, ['verify-pack', '-v', path.join(packDir(base), idxName)]).split('\n')
      .map(l => l.split(/\s+/)).filter(f => f.length === 5 && f[1] === 'blob')
      .sort((a, b) => Number(b[3]) - Number(a[3]))[0]!;
    const content = Buffer.from(git(base, ['cat-file', 'blob', id!]));
    const cases: Record<string, (dir: string) => void> = {
      // git's hash-object writes no loose copy of a packed object: written by hand.
      loose: (dir) => {
        const file = path.join(dir, '.git', 'objects', id!.slice(0, 2), id!.slice(2));
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, zlib.deflateSync(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content])));
      },
      // A second pack, older, so that the damaged copy is the one found first.
      'second pack': (dir) => {
        git(dir, ['pack-objects', '-q', path.join(packDir(dir), 'pack')], `${id}\n`);
        for (const n of fs.readdirSync(packDir(dir))) {
          const when = n.startsWith(idxName.slice(0, -4)) ? new Date('2030-01-01') : new Date('2020-01-01');
          fs.utimesSync(path.join(packDir(dir), n), when, when);
        }
      },
      none: () => {},
    };
    for (const [name, otherCopy] of Object.entries(cases)) {
      const [ours, theirs] = ['tsgit', 'git'].map((tool) => {
        const dir = path.join(root, `${name}-${tool}`);
        fs.cpSync(base, dir, { recursive: true });
        otherCopy(dir);
        const pack = path.join(packDir(dir), idxName.replace(/\.idx$/, '.pack'));
        fs.chmodSync(pack, 0o644);
        const bytes = fs.readFileSync(pack);
        bytes[Number(offset) + Math.floor(Number(inPack) / 2)]! ^= 0xff;
        fs.writeFileSync(pack, bytes);
        return dir;
      }) as [string, string];
      const t = tsgit(ours, ['repack', '-a', '-d']);
      const g = spawnSync('git', ['repack', '-a', '-d'], { cwd: theirs, env: GIT_ENV });
      assert.equal(t.status, g.status, `${name}: ${t.stderr}`);
      assert.equal(t.stderr.toString(), g.stderr.toString(), name);
      const crc = `error: bad packed object CRC for ${id}\n`;
      if (name === 'none') {
        assert.equal(t.status, 128);
        assert.equal(t.stderr.toString(), `${crc}${crc}fatal: packed object ${id} (stored in .git/objects/pack/${idxName.replace(/\.idx$/, '.pack')}) is corrupt\n`);
        continue;
      }
      assert.equal(t.stderr.toString(), `${crc}${crc}`, name);
      assert.equal(git(ours, ['fsck', '--full', '--no-dangling']), '', name);
      assert.equal(fs.readdirSync(packDir(ours)).filter(n => n.endsWith('.pack')).length, 1, name);
      assert.equal(countObjects(ours).count, 0, `${name}: no loose objects`);
      assert.equal(git(ours, ['cat-file', 'blob', id!]), content.toString());
    }
  } finally {
    rmrf(base);
    rmrf(root);
  }
});
