// Where a lookup finds an object stored in several places, against git 2.39: every pack, the
// repository's and then its alternates', before any loose object (object-file.c,
// do_oid_object_info_extended()). Copies of one id with different content, which only a damaged or
// forged store has, show which copy is read: here a loose object written by hand under the id of
// other content. And an object repacked after the store was opened (moved from loose into a new
// pack) is still found, by the scan of the pack directory that follows a miss.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { fromHex } from '../src/core/oid.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { GIT_ENV, git, rmrf, tmpDir, TSGIT } from './helpers.js';

/** Runs `args` under git and tsgit in `cwd`: the same status, stdout and stderr. Returns git's stdout. */
function same(cwd: string, args: string[], input?: string): string {
  const theirs = spawnSync('git', args, { cwd, env: GIT_ENV, input, encoding: 'latin1' });
  const ours = spawnSync(process.execPath, [TSGIT, ...args], { cwd, env: GIT_ENV, input, encoding: 'latin1' });
  const what = `${args.join(' ')} in ${cwd}`;
  assert.equal(ours.status, theirs.status, `${what}: status (tsgit said ${ours.stderr})`);
  assert.equal(ours.stdout, theirs.stdout, `${what}: stdout`);
  assert.equal(ours.stderr, theirs.stderr, `${what}: stderr`);
  return theirs.stdout;
}

/** Writes a loose blob of `content` under the id `id` (another content's): a forged copy. */
function forgeLoose(objects: string, id: string, content: string): void {
  const dir = path.join(objects, id.slice(0, 2));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, id.slice(2)), zlib.deflateSync(Buffer.from(`blob ${Buffer.byteLength(content)}\0${content}`)));
}

describe('lookup order when an id is stored in several places, as in git', () => {
  let work: string;
  before(() => { work = tmpDir(); });
  after(() => rmrf(work));

  it("reads an alternate's pack before the repository's own loose object", () => {
    const lender = path.join(work, 'lender.git');
    git(work, ['init', '-q', '--bare', lender]);
    const id = git(lender, ['hash-object', '-w', '--stdin'], 'the packed content\n').trim();
    git(lender, ['pack-objects', '-q', path.join(lender, 'objects/pack/pack')], `${id}\n`);
    git(lender, ['prune-packed']);
    const borrower = path.join(work, 'borrower');
    git(work, ['init', '-q', borrower]);
    fs.writeFileSync(path.join(borrower, '.git/objects/info/alternates'), `${path.join(lender, 'objects')}\n`);
    forgeLoose(path.join(borrower, '.git/objects'), id, 'a forged loose copy, of another size\n');
    assert.equal(same(borrower, ['cat-file', '-p', id]), 'the packed content\n');
    same(borrower, ['cat-file', '-s', id]);
    same(borrower, ['cat-file', '--batch'], `${id}\n`);
    const odb = new ObjectDatabase(path.join(borrower, '.git/objects'));
    assert.equal(odb.read(fromHex(id)!)!.data.toString(), 'the packed content\n');
    assert.equal(odb.info(fromHex(id)!)!.size, 'the packed content\n'.length);
    odb.close();
  });

  it("reads the repository's own pack before an alternate's loose object, and its own loose object before an alternate's", () => {
    const lender = path.join(work, 'lender2.git');
    git(work, ['init', '-q', '--bare', lender]);
    const borrower = path.join(work, 'borrower2');
    git(work, ['init', '-q', borrower]);
    fs.writeFileSync(path.join(borrower, '.git/objects/info/alternates'), `${path.join(lender, 'objects')}\n`);
    const packed = git(borrower, ['hash-object', '-w', '--stdin'], 'packed here\n').trim();
    git(borrower, ['pack-objects', '-q', path.join(borrower, '.git/objects/pack/pack')], `${packed}\n`);
    git(borrower, ['prune-packed']);
    forgeLoose(path.join(lender, 'objects'), packed, 'forged in the alternate\n');
    const loose = git(borrower, ['hash-object', '-w', '--stdin'], 'loose here\n').trim();
    forgeLoose(path.join(lender, 'objects'), loose, 'also forged in the alternate\n');
    assert.equal(same(borrower, ['cat-file', '-p', packed]), 'packed here\n');
    assert.equal(same(borrower, ['cat-file', '-p', loose]), 'loose here\n');
  });

  it('finds an object repacked after the store was opened, in its own directory or an alternate', () => {
    const lender = path.join(work, 'lender3.git');
    git(work, ['init', '-q', '--bare', lender]);
    const lent = git(lender, ['hash-object', '-w', '--stdin'], 'lent, loose when opened\n').trim();
    const repo = path.join(work, 'repo3');
    git(work, ['init', '-q', '-b', 'main', repo]);
    fs.writeFileSync(path.join(repo, '.git/objects/info/alternates'), `${path.join(lender, 'objects')}\n`);
    fs.writeFileSync(path.join(repo, 'f'), 'own, loose when opened\n');
    git(repo, ['add', 'f']);
    git(repo, ['commit', '-qm', 'c']);
    const own = git(repo, ['rev-parse', 'HEAD:f']).trim();
    const odb = new ObjectDatabase(path.join(repo, '.git/objects'));
    try {
      // Both are read loose once, so their fan-out directories are listed (and remembered).
      assert.ok(odb.has(fromHex(own)!) && odb.has(fromHex(lent)!));
      git(repo, ['repack', '-adq']);
      git(lender, ['pack-objects', '-q', path.join(lender, 'objects/pack/pack')], `${lent}\n`);
      git(lender, ['prune-packed']);
      assert.equal(fs.existsSync(path.join(repo, '.git/objects', own.slice(0, 2), own.slice(2))), false, 'the loose copy is gone');
      assert.equal(odb.read(fromHex(own)!)!.data.toString(), 'own, loose when opened\n');
      assert.equal(odb.read(fromHex(lent)!)!.data.toString(), 'lent, loose when opened\n');
      assert.equal(odb.locate(fromHex(lent)!)?.pack?.name.startsWith('pack-'), true, 'found in the new pack');
      // One never looked up before: no listing says it is loose, the lookup misses, and the scan
      // of the pack directory (changed since) that follows the miss finds it.
      const unseen = [git(repo, ['rev-parse', 'HEAD']).trim(), git(repo, ['rev-parse', 'HEAD^{tree}']).trim()]
        .find(id => id.slice(0, 2) !== own.slice(0, 2) && id.slice(0, 2) !== lent.slice(0, 2))!;
      assert.notEqual(odb.locate(fromHex(unseen)!)?.pack ?? null, null);
    } finally {
      odb.close();
    }
  });
  it("searches its own packs once on a miss that an alternate's pack answers, or nothing does", () => {
    const lender = path.join(work, 'lender4.git');
    git(work, ['init', '-q', '--bare', lender]);
    const lent = git(lender, ['hash-object', '-w', '--stdin'], 'only in the alternate\n').trim();
    git(lender, ['pack-objects', '-q', path.join(lender, 'objects/pack/pack')], `${lent}\n`);
    git(lender, ['prune-packed']);
    const repo = path.join(work, 'repo4');
    git(work, ['init', '-q', repo]);
    const own = git(repo, ['hash-object', '-w', '--stdin'], 'own\n').trim();
    git(repo, ['pack-objects', '-q', path.join(repo, '.git/objects/pack/pack')], `${own}\n`);
    fs.writeFileSync(path.join(repo, '.git/objects/info/alternates'), `${path.join(lender, 'objects')}\n`);
    const odb = new ObjectDatabase(path.join(repo, '.git/objects'));
    try {
      const [ours] = odb.allPacks();
      let finds = 0;
      const find = ours!.index.find.bind(ours!.index);
      ours!.index.find = (oid, off) => { finds++; return find(oid, off); };
      assert.equal(odb.read(fromHex(lent)!)!.data.toString(), 'only in the alternate\n');
      assert.equal(finds, 1, 'read');
      finds = 0;
      assert.equal(odb.info(fromHex(lent)!)!.size, 'only in the alternate\n'.length);
      assert.equal(finds, 1, 'info');
      // A miss everywhere: one search, and no second one, since no pack directory changed.
      finds = 0;
      assert.equal(odb.has(fromHex('0123456789012345678901234567890123456789')!), false);
      assert.equal(finds, 1, 'has');
    } finally {
      odb.close();
    }
  });
});
