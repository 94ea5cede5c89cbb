// index-pack's collision check (git's "SHA1 COLLISION FOUND"): an object of the pack that the
// repository already has must have the same content. The check builds the pack's objects along
// their delta trees, so it is tested where that walk can go wrong: an object deep in an OFS or
// REF chain whose ancestors the repository lacks or holds, and a thin pack's delta whose base
// --fix-thin took from the repository. git is the oracle for each verdict.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packObjects, plantImpostor, verdicts, type PackedObject } from './collision-oracle.js';
import { git, gitBuf, makeRepo, rmrf, tmpDir } from './helpers.js';

describe('index-pack collision check along delta chains', () => {
  let work: string;
  let src: string;
  before(() => {
    work = tmpDir();
    src = makeRepo(60, { bare: true, at: path.join(work, 'src.git') });
  });
  after(() => rmrf(work));

  for (const kind of ['OFS', 'REF'] as const) {
    it(`finds a colliding ${kind}_DELTA deep in its chain, and passes the same objects stored as they are`, () => {
      const data = gitBuf(src, ['pack-objects', '-q', '--all', '--stdout', '--depth=50', ...(kind === 'OFS' ? ['--delta-base-offset'] : [])], '');
      const packFile = path.join(work, `${kind}.pack`);
      fs.writeFileSync(packFile, data);
      git(work, ['index-pack', packFile]);
      const objects = packObjects(work, packFile);
      const deepest = objects.reduce((a, b) => (b.depth > a.depth ? b : a));
      assert.ok(deepest.depth >= 3, `a chain deep enough to test (deepest ${deepest.depth})`);

      // Every object already in the repository, loose, with the same content: no collision.
      const all = path.join(work, `${kind}-all.git`);
      git(work, ['init', '-q', '--bare', all]);
      gitBuf(all, ['unpack-objects', '-q'], data);
      const same = verdicts(all, data);
      assert.equal(same.theirs, null);
      assert.equal(same.ours, null);

      // The deepest delta differs in a repository holding everything else, and in one holding
      // nothing else (the walk must reach it through ancestors nobody compares).
      plantImpostor(all, deepest.id, deepest.type);
      const alone = path.join(work, `${kind}-alone.git`);
      git(work, ['init', '-q', '--bare', alone]);
      plantImpostor(alone, deepest.id, deepest.type);
      for (const repo of [all, alone]) {
        const v = verdicts(repo, data);
        assert.match(v.theirs ?? '', /COLLISION/);
        assert.match(v.ours ?? '', new RegExp(`SHA1 COLLISION FOUND WITH ${deepest.id}`));
      }
      // A whole object (the root of that chain) differing is found too.
      const root = objects.find((o) => o.id === chainRoot(objects, deepest))!;
      const rooted = path.join(work, `${kind}-root.git`);
      git(work, ['init', '-q', '--bare', rooted]);
      plantImpostor(rooted, root.id, root.type);
      const v = verdicts(rooted, data);
      assert.match(v.theirs ?? '', /COLLISION/);
      assert.match(v.ours ?? '', new RegExp(`SHA1 COLLISION FOUND WITH ${root.id}`));
    });
  }

  it('finds a colliding delta whose base --fix-thin took from the repository', () => {
    git(src, ['branch', '-f', 'old', 'main~8']);
    const dest = path.join(work, 'thin.git');
    git(work, ['init', '-q', '--bare', dest]);
    git(dest, ['fetch', '-q', src, 'old:refs/heads/old']);
    const data = gitBuf(src, ['pack-objects', '-q', '--thin', '--stdout', '--revs'], 'main\n^old\n');
    // git's own fix: the bases it appended are the objects beyond the thin pack's count.
    const fixed = path.join(work, 'fixed.git');
    git(work, ['init', '-q', '--bare', fixed]);
    fs.rmSync(path.join(fixed, 'objects'), { recursive: true });
    fs.cpSync(path.join(dest, 'objects'), path.join(fixed, 'objects'), { recursive: true });
    const kept = git(fixed, ['index-pack', '--fix-thin', '--stdin'], data).trim().split(/\s+/).pop()!;
    const objects = packObjects(fixed, path.join(fixed, 'objects', 'pack', `pack-${kept}.pack`));
    const appended = new Set(objects.slice(data.readUInt32BE(8)).map((o) => o.id));
    assert.ok(appended.size > 0, 'the pack is thin');
    const onThinBase = objects.find((o) => o.base !== null && appended.has(o.base))!;
    assert.ok(onThinBase, 'a delta against an appended base');

    const clean = verdicts(dest, data, ['--fix-thin']);
    assert.equal(clean.theirs, null);
    assert.equal(clean.ours, null);
    plantImpostor(dest, onThinBase.id, onThinBase.type);
    const v = verdicts(dest, data, ['--fix-thin']);
    assert.match(v.theirs ?? '', /COLLISION/);
    assert.match(v.ours ?? '', new RegExp(`SHA1 COLLISION FOUND WITH ${onThinBase.id}`));
  });
});

/** The whole object at the end of `o`'s delta chain. */
function chainRoot(objects: PackedObject[], o: PackedObject): string {
  const byId = new Map(objects.map((x) => [x.id, x]));
  let cur = o;
  while (cur.base) cur = byId.get(cur.base)!;
  return cur.id;
}
