// The index file against git: indexes git writes (versions 2, 3 and 4, long names, extensions)
// parse to what `git ls-files --debug` says and serialize back to the same bytes; indexes tsgit
// writes are read by git (ls-files, write-tree, fsck); corruption is reported; racy entries are
// smudged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { toHex } from '../src/core/oid.js';
import {
  CE_INTENT_TO_ADD, CE_SKIP_WORKTREE, emptyIndex, type IndexEntry, type IndexFile,
} from '../src/worktree/index-file/entry.js';
import { parseIndex, readIndexFile } from '../src/worktree/index-file/read.js';
import { serializeIndex, smudgeRacyEntries, writeIndexFile } from '../src/worktree/index-file/write.js';
import { git, makeRepo, rmrf, tmpDir } from './helpers.js';

/** `git ls-files -s --debug` parsed: one line of fields per entry, as our entries print them. */
function gitDebug(repo: string, env?: NodeJS.ProcessEnv): string[] {
  const text = git(repo, ['ls-files', '-s', '--debug'], undefined, env);
  const out: string[] = [];
  const re = /^(\d+) ([0-9a-f]{40}) (\d)\t(.*)\n  ctime: (\d+):(\d+)\n  mtime: (\d+):(\d+)\n  dev: (\d+)\tino: (\d+)\n  uid: (\d+)\tgid: (\d+)\n  size: (\d+)\tflags: ([0-9a-f]+)\n/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    out.push([m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], m[12], m[13]].join(' '));
  }
  return out;
}

function ours(index: IndexFile): string[] {
  return index.entries.map(e => [
    e.mode.toString(8).padStart(6, '0'), toHex(e.oid), (e.flags >> 12) & 3, Buffer.from(e.path).toString('utf8'),
    e.ctimeSec, e.ctimeNsec, e.mtimeSec, e.mtimeNsec, e.dev, e.ino, e.uid, e.gid, e.size,
  ].join(' '));
}

function indexOf(repo: string): string {
  return path.join(repo, '.git', 'index');
}

test('a version 2 index written by git parses to what git lists and serializes to the same bytes', () => {
  const repo = makeRepo(5);
  try {
    const bytes = fs.readFileSync(indexOf(repo));
    const index = parseIndex(bytes, 'index');
    assert.equal(index.version, 2);
    assert.deepEqual(ours(index), gitDebug(repo));
    assert.ok(index.cacheTree === null || index.cacheTree.name.length === 0);
    assert.deepEqual(serializeIndex(index), bytes);
  } finally {
    rmrf(repo);
  }
});

test('version 3 (skip-worktree, intent-to-add), version 4, long names and extensions round-trip', () => {
  const repo = makeRepo(5);
  try {
    const blob = git(repo, ['hash-object', '-w', '--stdin'], 'x\n').trim();
    const long = `${'d'.repeat(200)}/`.repeat(22) + 'f.txt'; // over 4095 bytes: name length 0xfff + NUL search
    git(repo, ['update-index', '--add', '--cacheinfo', `100644,${blob},${long}`]);
    git(repo, ['write-tree']); // a full TREE extension
    fs.writeFileSync(path.join(repo, 'ita.txt'), 'new\n');
    git(repo, ['add', '-N', 'ita.txt']);
    git(repo, ['update-index', '--skip-worktree', 'run.sh']);
    git(repo, ['-c', 'core.untrackedCache=true', 'status', '--porcelain']); // adds UNTR
    for (const version of [3, 4]) {
      git(repo, ['update-index', '--index-version', String(version)]);
      const bytes = fs.readFileSync(indexOf(repo));
      const index = parseIndex(bytes, 'index');
      assert.equal(index.version, version);
      assert.deepEqual(ours(index), gitDebug(repo));
      const byPath = new Map(index.entries.map(e => [Buffer.from(e.path).toString(), e]));
      assert.equal(byPath.get('ita.txt')!.extendedFlags, CE_INTENT_TO_ADD);
      assert.equal(byPath.get('run.sh')!.extendedFlags, CE_SKIP_WORKTREE);
      assert.equal(byPath.get(long)!.path.length, long.length);
      assert.deepEqual(index.extensions.map(x => x.signature), ['UNTR']);
      assert.deepEqual(serializeIndex(index), bytes, `version ${version} did not round-trip`);
    }
  } finally {
    rmrf(repo);
  }
});

test('an index tsgit writes is read by git: entries, version 3 and 4, cache-tree reused by write-tree', () => {
  const repo = makeRepo(3);
  try {
    const head = git(repo, ['rev-parse', 'HEAD^{tree}']).trim();
    const original = readIndexFile(indexOf(repo))!;
    for (const version of [2, 3, 4] as const) {
      const index: IndexFile = { ...original, version, extensions: [] };
      if (version === 3) index.entries = index.entries.map((e, i) => (i === 0 ? { ...e, extendedFlags: CE_SKIP_WORKTREE } : e));
      writeIndexFile(indexOf(repo), index);
      assert.ok(!fs.existsSync(indexOf(repo) + '.lock'));
      const reread = fs.readFileSync(indexOf(repo));
      assert.equal(reread.readUInt32BE(4), version);
      assert.deepEqual(gitDebug(repo), ours(index));
      assert.equal(git(repo, ['write-tree']).trim(), head);
      git(repo, ['fsck', '--no-progress']);
    }
  } finally {
    rmrf(repo);
  }
});

test('git write-tree trusts a valid cache-tree node: a wrong id there is what it writes', () => {
  // Proves the TREE extension is read by git (and so must never claim a tree it does not hold).
  const repo = makeRepo(3);
  try {
    git(repo, ['write-tree']);
    const index = readIndexFile(indexOf(repo))!;
    assert.ok(index.cacheTree && index.cacheTree.entryCount === index.entries.length);
    const other = git(repo, ['mktree'], '').trim();
    index.cacheTree.oid = Buffer.from(other, 'hex');
    writeIndexFile(indexOf(repo), index);
    assert.equal(git(repo, ['write-tree']).trim(), other);
    index.cacheTree.entryCount = -1;
    writeIndexFile(indexOf(repo), index);
    assert.equal(git(repo, ['write-tree']).trim(), git(repo, ['rev-parse', 'HEAD^{tree}']).trim());
  } finally {
    rmrf(repo);
  }
});

test('corrupt indexes are reported with the file and what is wrong', () => {
  const repo = makeRepo(2);
  try {
    const good = fs.readFileSync(indexOf(repo));
    const flip = Buffer.from(good);
    flip[40] ^= 1;
    assert.throws(() => parseIndex(flip, 'idx'), /idx: checksum mismatch/);
    assert.throws(() => parseIndex(good.subarray(0, 30), 'idx'), /idx: /);
    assert.throws(() => parseIndex(Buffer.concat([Buffer.from('DIRX'), good.subarray(4)]), 'idx'), /bad signature/);
    const v5 = Buffer.from(good);
    v5.writeUInt32BE(5, 4);
    assert.throws(() => parseIndex(v5, 'idx'), /unsupported index version 5/);
    // Entries out of order, with a valid checksum: git refuses these too.
    const index = parseIndex(good, 'idx');
    index.entries.reverse();
    assert.throws(() => parseIndex(serializeIndex(index), 'idx'), /out of order or duplicated/);
    // A required extension (lower-case signature) tsgit does not know.
    index.entries.reverse();
    index.extensions = [{ signature: 'link', data: Buffer.alloc(20) }];
    assert.throws(() => parseIndex(serializeIndex(index), 'idx'), /'link' extension, which tsgit does not understand/);
    // A trailer of zeros (index.skipHash) is accepted, as by git.
    const zero = Buffer.from(good);
    zero.fill(0, zero.length - 20);
    assert.equal(parseIndex(zero, 'idx').entries.length, index.entries.length);
    assert.equal(readIndexFile(path.join(repo, 'no-such-index')), null);
  } finally {
    rmrf(repo);
  }
});

test('racy entries not stat-ed since are smudged (size 0); fresh, older and submodule entries are not', () => {
  const entry = (mtimeSec: number, extra: Partial<IndexEntry> = {}): IndexEntry => ({
    ctimeSec: mtimeSec, ctimeNsec: 0, mtimeSec, mtimeNsec: 5, dev: 1, ino: 2, mode: 0o100644, uid: 0, gid: 0,
    size: 10, oid: new Uint8Array(20).fill(1), flags: 0, extendedFlags: 0, path: Buffer.from(`p${mtimeSec}`), ...extra,
  });
  const index: IndexFile = {
    ...emptyIndex(),
    entries: [entry(99), entry(100), entry(101), entry(102, { uptodate: true }), entry(103, { mode: 0o160000 })],
    timestampSec: 100, timestampNsec: 0,
  };
  assert.equal(smudgeRacyEntries(index), 2);
  assert.deepEqual(index.entries.map(e => e.size), [10, 0, 0, 10, 10]);
  // An index that was never read has no timestamp: nothing is racy.
  const fresh: IndexFile = { ...emptyIndex(), entries: [entry(100)] };
  assert.equal(smudgeRacyEntries(fresh), 0);
});

test('smudged entries make git look at the content instead of trusting stat data', () => {
  const repo = makeRepo(2);
  const dir = tmpDir();
  try {
    const file = path.join(repo, 'run.sh');
    const index = readIndexFile(indexOf(repo))!;
    // Same size, same mtime: only content differs. Without smudging git would call it clean.
    const st = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\d$/, 'X'));
    fs.utimesSync(file, st.atime, st.mtime);
    const e = index.entries.find(x => Buffer.from(x.path).toString() === 'run.sh')!;
    index.timestampSec = e.mtimeSec; // as if the index had been written in the same second
    writeIndexFile(indexOf(repo), index);
    assert.equal(readIndexFile(indexOf(repo))!.entries.find(x => Buffer.from(x.path).toString() === 'run.sh')!.size, 0);
    // Push the index's own mtime into the future so that git's own racy check would not help.
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(indexOf(repo), future, future);
    assert.equal(git(repo, ['status', '--porcelain']), ' M run.sh\n');
  } finally {
    rmrf(repo); rmrf(dir);
  }
});
