// index-pack against git on packs git made: the .idx (and .rev) must be git's byte for byte, git
// must accept what tsgit writes, and a repository holding a pack received with --stdin must pass
// `git fsck --full`. Packs: OFS and REF deltas, a thin pack fixed with bases from the repository,
// a deep delta chain, objects over 1 MB and one over the 8 MB streaming threshold.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { indexPack } from '../src/packing/index-pack/index.js';
import { git, gitBuf, GIT_ENV, rmrf, tmpDir, tsgit } from './helpers.js';

let work: string;
let repo: string;
const packs: Record<string, string> = {};

/** A history with a 1.2 MB file edited 12 times, a 9 MB file edited once, and a chain of 1200 edits. */
function buildRepo(dir: string): void {
  git(dir, ['init', '-q', '--bare', '.']);
  const parts: (string | Buffer)[] = [];
  const data = (b: Buffer) => { parts.push(`data ${b.length}\n`, b, '\n'); };
  const lines = (n: number, tag: (i: number) => string) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(tag(i));
    return Buffer.from(out.join('\n') + '\n');
  };
  const chain = lines(200, (i) => `original line ${i} of the chain file`);
  const chainText = chain.toString().split('\n');
  let mark = 0;
  const commit = (msg: string, files: [string, Buffer][]) => {
    mark++;
    parts.push(`commit refs/heads/main\nmark :${mark}\ncommitter C O Mitter <c@example.com> ${1700000000 + mark} +0000\n`);
    data(Buffer.from(msg));
    if (mark > 1) parts.push(`from :${mark - 1}\n`);
    for (const [name, content] of files) {
      parts.push(`M 100644 inline ${name}\n`);
      data(content);
    }
  };
  for (let v = 0; v < 12; v++) {
    commit(`big ${v}`, [['big/big.txt', lines(40000, (i) => (i % 997 === v ? `edited ${v} at ${i}` : `line ${i} of the big file, padded to be long enough`))],
      [`dir${v % 3}/small${v}.txt`, Buffer.from(`small file ${v}\n`.repeat(v + 1))]]);
  }
  commit('huge', [['huge/huge.txt', lines(450000, (i) => `huge line ${i} ${(i * 7919) % 10007}`)]]);
  commit('huge edit', [['huge/huge.txt', lines(450000, (i) => (i === 5 ? 'edited' : `huge line ${i} ${(i * 7919) % 10007}`))]]);
  for (let v = 0; v < 1200; v++) {
    chainText[(v * 37) % 200] = `line ${(v * 37) % 200} changed in version ${v}`;
    commit(`chain ${v}`, [['chain.txt', Buffer.from(chainText.join('\n'))]]);
  }
  gitBuf(dir, ['fast-import', '--quiet'], Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
}

function packObjects(name: string, args: string[], input = ''): string {
  const file = path.join(work, `${name}.pack`);
  fs.writeFileSync(file, gitBuf(repo, ['pack-objects', '-q', '--stdout', ...args], input));
  packs[name] = file;
  return file;
}

/** Indexes a pack with git and with tsgit (-o), returning both .idx files' bytes. */
function bothIdx(pack: string, extra: string[] = []): { ours: Buffer; theirs: Buffer } {
  const base = pack.slice(0, -5);
  const theirs = `${base}.git.idx`, ours = `${base}.ts.idx`;
  fs.rmSync(theirs, { force: true });
  fs.rmSync(ours, { force: true });
  git(work, ['index-pack', ...extra, '-o', theirs, pack]);
  const r = tsgit(work, ['index-pack', ...extra, '-o', ours, pack]);
  assert.equal(r.status, 0, r.stderr.toString());
  return { ours: fs.readFileSync(ours), theirs: fs.readFileSync(theirs) };
}

before(() => {
  work = tmpDir('tsgit-index-pack-');
  repo = path.join(work, 'repo.git');
  fs.mkdirSync(repo);
  buildRepo(repo);
  packObjects('ofs', ['--all', '--delta-base-offset'], '');
  packObjects('ref', ['--all'], '');
  packObjects('deep', ['--all', '--delta-base-offset', '--no-reuse-delta', '--depth=1000', '--window=50'], '');
});

after(() => rmrf(work));

describe('index-pack on packs made by git', () => {
  for (const kind of ['ofs', 'ref', 'deep']) {
    it(`writes git's .idx for the ${kind} pack`, () => {
      const { ours, theirs } = bothIdx(packs[kind]!);
      assert.ok(ours.equals(theirs), `${kind}: .idx differs from git's`);
    });
  }

  it('the packs exercise what they are meant to', () => {
    const stat = (p: string) => {
      const idx = `${p.slice(0, -5)}.idx`;
      if (!fs.existsSync(idx)) git(work, ['index-pack', '-o', idx, p]);
      return git(work, ['verify-pack', '-v', idx]);
    };
    const deepest = Math.max(...[...stat(packs.deep!).matchAll(/chain length = (\d+)/g)].map((m) => Number(m[1])));
    assert.ok(deepest >= 200, `deep pack has chains of only ${deepest}`);
    const refStat = stat(packs.ref!);
    assert.match(refStat, /chain length = 1:/);
    // Over 8 MB: the huge file's two versions, one as a delta of the other.
    assert.ok(refStat.split('\n').some((l) => /^[0-9a-f]{40} blob\s+(\d+)/.test(l) && Number(l.split(/\s+/)[2]) > 8 << 20));
  });

  it('indexes more objects than its tables first hold', () => {
    const dir = path.join(work, 'many.git');
    git(work, ['init', '-q', '--bare', dir]);
    const parts: string[] = [];
    for (let i = 0; i < 70000; i++) {
      const body = `blob number ${i}\n`;
      parts.push(`blob\ndata ${body.length}\n${body}\n`);
    }
    git(dir, ['fast-import', '--quiet'], parts.join(''));
    const ids = git(dir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']);
    const pack = path.join(work, 'many.pack');
    fs.writeFileSync(pack, gitBuf(dir, ['pack-objects', '-q', '--stdout'], ids));
    const { ours, theirs } = bothIdx(pack);
    assert.equal(theirs.readUInt32BE(8 + 255 * 4), 70000);
    assert.ok(ours.equals(theirs));
  });

  it('gives the same .idx with one thread and with several', () => {
    for (const threads of ['1', '2', '4']) {
      const { ours, theirs } = bothIdx(packs.ofs!, [`--threads=${threads}`]);
      assert.ok(ours.equals(theirs), `--threads=${threads}`);
    }
  });

  it('prints the pack checksum, and git verify-pack accepts the result', () => {
    const dir = path.join(work, 'inplace');
    fs.mkdirSync(dir);
    const pack = path.join(dir, 'p.pack');
    fs.copyFileSync(packs.ref!, pack);
    const r = tsgit(dir, ['index-pack', 'p.pack']);
    assert.equal(r.status, 0, r.stderr.toString());
    const hash = r.stdout.toString().trim();
    assert.match(hash, /^[0-9a-f]{40}$/);
    assert.equal(hash, fs.readFileSync(pack).subarray(-20).toString('hex'));
    assert.deepEqual(fs.readdirSync(dir).sort(), ['p.idx', 'p.pack']);
    assert.equal(fs.statSync(path.join(dir, 'p.idx')).mode & 0o777, 0o444);
    git(dir, ['verify-pack', 'p.idx']);
  });

  it('writes v1 indexes and 64-bit offset tables as git does', () => {
    for (const flag of ['--index-version=1', '--index-version=2,0x2000', '--index-version=2,0']) {
      const { ours, theirs } = bothIdx(packs.ofs!, [flag]);
      assert.ok(ours.equals(theirs), flag);
    }
  });

  it("writes git's .rev with --rev-index", () => {
    const pack = packs.ofs!;
    const base = pack.slice(0, -5);
    bothIdx(pack, ['--rev-index']);
    const ours = fs.readFileSync(`${base}.ts.rev`), theirs = fs.readFileSync(`${base}.git.rev`);
    assert.ok(ours.equals(theirs));
  });

  it('receives a pack with --stdin into a repository that git fsck accepts', () => {
    for (const kind of ['ofs', 'ref', 'deep']) {
      const dest = path.join(work, `recv-${kind}.git`);
      git(work, ['init', '-q', '--bare', dest]);
      const r = tsgit(dest, ['index-pack', '--stdin', ...(kind === 'ref' ? ['--strict'] : [])], fs.readFileSync(packs[kind]!));
      assert.equal(r.status, 0, r.stderr.toString());
      const m = /^pack\t([0-9a-f]{40})\n$/.exec(r.stdout.toString());
      assert.ok(m, `stdout: ${JSON.stringify(r.stdout.toString())}`);
      const names = fs.readdirSync(path.join(dest, 'objects', 'pack')).sort();
      assert.deepEqual(names, [`pack-${m[1]}.idx`, `pack-${m[1]}.pack`]);
      git(dest, ['update-ref', 'refs/heads/main', git(repo, ['rev-parse', 'main']).trim()]);
      git(dest, ['fsck', '--full', '--strict']);
      // The .idx --stdin wrote, against git's index of the same pack.
      const received = path.join(dest, 'objects', 'pack', `pack-${m[1]}`);
      const theirs = path.join(work, `recv-${kind}.git.idx`);
      git(work, ['index-pack', '-o', theirs, `${received}.pack`]);
      assert.ok(fs.readFileSync(`${received}.idx`).equals(fs.readFileSync(theirs)), `${kind}: the .idx written with --stdin differs from git's`);
    }
  });

  it('writes .keep with --keep and says so', () => {
    const dest = path.join(work, 'keep.git');
    git(work, ['init', '-q', '--bare', dest]);
    const r = tsgit(dest, ['index-pack', '--stdin', '--keep=fetched by test'], fs.readFileSync(packs.ofs!));
    assert.equal(r.status, 0, r.stderr.toString());
    const m = /^keep\t([0-9a-f]{40})\n$/.exec(r.stdout.toString());
    assert.ok(m);
    const keep = path.join(dest, 'objects', 'pack', `pack-${m[1]}.keep`);
    assert.equal(fs.readFileSync(keep, 'utf8'), 'fetched by test\n');
    // The same pack again: the .keep exists already, so git reports "pack".
    fs.rmSync(path.join(dest, 'objects', 'pack', `pack-${m[1]}.pack`), { force: true });
    const again = tsgit(dest, ['index-pack', '--stdin', '--keep'], fs.readFileSync(packs.ofs!));
    assert.equal(again.status, 0, again.stderr.toString());
    assert.equal(again.stdout.toString(), `pack\t${m[1]}\n`);
  });

  it('fixes a thin pack with bases from the repository, as git does', () => {
    const old = git(repo, ['rev-parse', 'main~600']).trim();
    const thin = gitBuf(repo, ['pack-objects', '-q', '--revs', '--thin', '--stdout', '--delta-base-offset'], `main\n^${old}\n`);
    const mine = path.join(work, 'thin-ts.git'), theirs = path.join(work, 'thin-git.git');
    for (const d of [mine, theirs]) {
      git(work, ['init', '-q', '--bare', d]);
      git(d, ['fetch', '-q', repo, `${old}:refs/heads/main`]);
    }
    // Without --fix-thin the pack cannot be completed.
    const plain = tsgit(mine, ['index-pack', '--stdin'], thin);
    assert.notEqual(plain.status, 0);
    assert.match(plain.stderr.toString(), /unresolved delta/);
    const before = fs.readdirSync(path.join(mine, 'objects', 'pack')).sort();

    const r = tsgit(mine, ['index-pack', '--stdin', '--fix-thin', '--strict'], thin);
    assert.equal(r.status, 0, r.stderr.toString());
    const g = git(theirs, ['index-pack', '--stdin', '--fix-thin', '--strict'], thin);
    const ours = /^pack\t([0-9a-f]{40})$/.exec(r.stdout.toString().trim())![1]!;
    const gits = /^pack\t([0-9a-f]{40})$/.exec(g.trim())![1]!;
    const ourPack = path.join(mine, 'objects', 'pack', `pack-${ours}.pack`);
    const gitPack = path.join(theirs, 'objects', 'pack', `pack-${gits}.pack`);
    // The same objects, in the same order, with the same bases appended (git's zlib may
    // compress the appended bases a byte differently from Node's, so the checksums can differ).
    const listing = (p: string) => git(work, ['verify-pack', '-v', `${p.slice(0, -5)}.idx`]).split('\n')
      .filter((l) => /^[0-9a-f]{40} /.test(l)).map((l) => l.split(/\s+/).slice(0, 3).join(' '));
    assert.deepEqual(listing(ourPack), listing(gitPack));
    assert.equal(fs.readFileSync(ourPack).readUInt32BE(8), fs.readFileSync(gitPack).readUInt32BE(8));
    const { ours: idx, theirs: gitIdx } = bothIdx(ourPack);
    assert.ok(idx.equals(gitIdx));
    assert.ok(fs.readFileSync(`${ourPack.slice(0, -5)}.idx`).equals(gitIdx));
    git(mine, ['update-ref', 'refs/heads/main', git(repo, ['rev-parse', 'main']).trim()]);
    git(mine, ['fsck', '--full', '--strict']);
    assert.equal(fs.readdirSync(path.join(mine, 'objects', 'pack')).length, before.length + 2 + 2);
  });

  it('runs afterFirstPass once, between the passes', async () => {
    // The CLI runs a full collection there (cli/memory.ts): what the first pass held is garbage
    // outside the heap by then, and the second pass has not yet asked for memory of its own.
    const events: string[] = [];
    const progress = (title: string) => {
      events.push(`${title} started`);
      return { update: () => {}, stop: () => { events.push(`${title} done`); } };
    };
    await indexPack(null, packs.ofs!, {
      indexPath: path.join(work, 'hook.idx'), threads: 2, progress,
      afterFirstPass: () => { events.push('afterFirstPass'); },
    });
    assert.deepEqual(events, ['Indexing objects started', 'Indexing objects done', 'afterFirstPass',
      'Resolving deltas started', 'Resolving deltas done']);
  });

  it('indexes a stream that arrives in small pieces', async () => {
    const data = fs.readFileSync(packs.ref!);
    async function* pieces() {
      for (let i = 0; i < data.length; i += 4093) yield data.subarray(i, Math.min(data.length, i + 4093));
    }
    const dest = path.join(work, 'stream.git');
    git(work, ['init', '-q', '--bare', dest]);
    const result = await indexPack(path.join(dest, 'objects'), Readable.from(pieces()), { threads: 2 });
    assert.equal(result.packHash, data.subarray(-20).toString('hex'));
    assert.ok(fs.readFileSync(result.packPath).equals(data));
    const { theirs } = bothIdx(packs.ref!);
    assert.ok(fs.readFileSync(result.indexPath).equals(theirs));
  });

  it('stops when its signal aborts once the pack has arrived, leaving nothing behind', async () => {
    const data = fs.readFileSync(packs.deep!);
    const controller = new AbortController();
    async function* arrives() {
      yield data;
      controller.abort();
    }
    const dest = path.join(work, 'aborted.git');
    git(work, ['init', '-q', '--bare', dest]);
    await assert.rejects(indexPack(path.join(dest, 'objects'), Readable.from(arrives()), { threads: 2, signal: controller.signal }),
      /interrupted while resolving deltas/);
    assert.deepEqual(fs.readdirSync(path.join(dest, 'objects', 'pack')), []);
  });

  it('shows progress like git with -v', () => {
    const ours = tsgit(work, ['index-pack', '-v', '-o', path.join(work, 'progress.idx'), packs.ofs!]);
    assert.equal(ours.status, 0, ours.stderr.toString());
    const theirs = spawnSync('git', ['index-pack', '-v', '-o', path.join(work, 'progress-git.idx'), packs.ofs!], { env: GIT_ENV });
    assert.equal(theirs.status, 0);
    const finals = (s: string) => s.split(/[\r\n]/).filter((l) => l.endsWith(', done.'));
    const lines = finals(ours.stderr.toString());
    assert.equal(lines.length, 2);
    assert.deepEqual(lines, finals(theirs.stderr.toString()));
    const quiet = tsgit(work, ['index-pack', '-o', path.join(work, 'quiet.idx'), packs.ofs!]);
    assert.equal(quiet.stderr.toString(), '');
  });
});
