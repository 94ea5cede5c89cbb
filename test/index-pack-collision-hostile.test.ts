// index-pack's collision check (collision.ts: the pack's delta trees walked in visit mode, each
// object the repository has compared with its copy there) under hostile and unusual input, each
// verdict compared with git's: the same acceptance or refusal, the same colliding id named, and
// from tsgit exit 128, no stack trace and nothing left behind. Packs made by hand: chains
// thousands deep of OFS_DELTAs, of REF_DELTAs and of both; duplicate objects, a delta that
// rebuilds its own base, a thin pack's chain under a base --fix-thin appends, a large blob beyond
// the resolver's buffer pool. The repository holds some of their objects loose, packed or through
// objects/info/alternates, the same or planted with other content or another type under the same
// id. Then a seeded loop of known-object sets over git's own packs, indexed in this process.
//
// What it guards, found by this attack: a delta copying more than 64 KiB in one instruction (git
// applies copies of up to 16 MiB; only its encoder stops at 64 KiB) was refused, in index-pack
// and in every read, as declaring more than its instructions could produce (src/pack/delta.ts's
// maxResult; 'compares a large blob ...' fails without it); and an object the repository lists
// but cannot read (a dangling symlink in its place) passed as no collision, where git refuses
// (collision.ts; 'refuses, as git does, a known object that cannot be read ...' fails without it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkGitmodulesBlob } from '../src/config/gitmodules.js';
import { GitError } from '../src/core/errors.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { indexPack } from '../src/packing/index-pack/index.js';
import { packObjects, verdicts, writeLoose, type PackedObject } from './collision-oracle.js';
import { git, gitBuf, GIT_ENV, makeRepo, rmrf, seededRandom, tmpDir } from './helpers.js';
import { applyOps, deltaOf, objectId, packBytes, writePack, type DeltaOp, type RawEntry } from './pack-builder.js';

const BLOB = 3, OFS = 6, REF = 7;
/**
 * The loop's draws: a failure names its round, which the same seed replays. 100 rounds keep the
 * suite within CI's budget (each runs git index-pack as the oracle); TSGIT_COLLISION_ROUNDS runs
 * more by hand.
 */
const SEED = 0xc011de;
const ITERATIONS = Number(process.env.TSGIT_COLLISION_ROUNDS) || 100;

const hex = (type: number, data: Buffer): string => objectId(type, data).toString('hex');
const collision = (id: string): RegExp => new RegExp(`SHA1 COLLISION FOUND WITH ${id}`);

let work: string;
before(() => { work = tmpDir('tsgit-collision-hostile-'); });
after(() => rmrf(work));

let repos = 0;
/**
 * A fresh bare repository (without git's sample hooks: it is copied for every verdict) holding
 * `blobs` (id, content) as blobs whatever they hash to: the first loose, the rest in one pack.
 */
function repoWith(blobs: [string, Buffer][] = []): string {
  const repo = path.join(work, `r${++repos}.git`);
  git(work, ['init', '-q', '--bare', '--template=', repo]);
  const [first, ...rest] = blobs;
  if (first) writeLoose(path.join(repo, 'objects'), first[0], 'blob', first[1]);
  if (rest.length) writePack(path.join(repo, 'objects', 'pack'), rest.map(([id, data]) => ({ type: BLOB, data, oid: Buffer.from(id, 'hex') })));
  return repo;
}

/** Both refuse, and tsgit names `id` as git does. */
function bothFind(v: { ours: string | null; theirs: string | null }, id: string): void {
  assert.match(v.theirs ?? '', collision(id));
  assert.match(v.ours ?? '', collision(id));
}

function bothAccept(v: { ours: string | null; theirs: string | null }): void {
  assert.equal(v.theirs, null);
  assert.equal(v.ours, null);
}

type Link = (i: number) => 'ofs' | 'ref';

/** Each of a chain's objects as a delta of the one before, OFS or REF as `kind` says: entries, contents, ids. */
function chain(depth: number, kind: Link, seed: string): { entries: RawEntry[]; contents: Buffer[]; ids: string[] } {
  let cur: Buffer = Buffer.from(`${seed}: the chain's base\n`.repeat(4));
  const entries: RawEntry[] = [{ type: BLOB, data: cur }];
  const contents: Buffer[] = [cur];
  for (let i = 1; i <= depth; i++) {
    const ops: DeltaOp[] = [{ copy: [0, Math.min(cur.length, 60)] }, { insert: Buffer.from(`step ${i}\n`) }];
    const next = applyOps(cur, ops);
    const link = kind(i) === 'ofs' ? { type: OFS, base: i - 1 } : { type: REF, baseOid: objectId(BLOB, cur) };
    entries.push({ ...link, data: deltaOf(cur.length, ops), oid: objectId(BLOB, next) });
    contents.push(next);
    cur = next;
  }
  return { entries, contents, ids: contents.map((c) => hex(BLOB, c)) };
}

describe('index-pack collision check on hand-made packs, against git', () => {
  const DEPTH = 2500;
  const kinds: [string, Link][] = [['OFS', () => 'ofs'], ['REF', () => 'ref'], ['mixed OFS and REF', (i) => (i % 3 ? 'ofs' : 'ref')]];
  for (const [name, kind] of kinds) {
    it(`finds a collision in a ${name} chain ${DEPTH} deep, with most of the chain known`, () => {
      const c = chain(DEPTH, kind, name);
      const data = packBytes(c.entries).data;
      const known = c.ids.map((id, i) => [id, c.contents[i]!] as [string, Buffer]).filter((_, i) => i % 7 === 0 || i === DEPTH);
      bothAccept(verdicts(repoWith(known), data));
      const middle = DEPTH >> 1;
      bothFind(verdicts(repoWith([[c.ids[middle]!, Buffer.from('impostor\n')], ...known]), data), c.ids[middle]!);
    });
  }

  it('finds a known object of another type, whatever its bytes', () => {
    const c = chain(3, () => 'ref', 'retyped');
    const repo = repoWith();
    writeLoose(path.join(repo, 'objects'), c.ids[3]!, 'tree', c.contents[3]!);
    bothFind(verdicts(repo, packBytes(c.entries).data, ['--strict']), c.ids[3]!);
  });

  it('refuses, with git, a REF_DELTA whose base the pack holds twice', () => {
    const c = chain(1, () => 'ref', 'twice');
    const data = packBytes([c.entries[0]!, ...c.entries]).data;
    const v = verdicts(repoWith([[c.ids[1]!, c.contents[1]!]]), data);
    assert.match(v.theirs ?? '', /already resolved \(duplicate base/);
    assert.match(v.ours ?? '', /claimed by two bases/);
  });

  it('walks from a duplicate base, and from a delta that rebuilds its own base', () => {
    const c = chain(1, () => 'ofs', 'duplicates');
    const [base, delta] = c.entries as [RawEntry, RawEntry];
    const x = c.contents[0]!;
    // The base twice, the delta on the second; then the base as a delta of itself, the delta on that.
    const shapes = [
      [base, base, { ...delta, base: 1 }],
      [base, { type: OFS, base: 0, data: deltaOf(x.length, [{ copy: [0, x.length] }]), oid: objectId(BLOB, x) }, { ...delta, base: 1 }],
    ];
    for (const entries of shapes) {
      const data = packBytes(entries).data;
      bothAccept(verdicts(repoWith([[c.ids[1]!, c.contents[1]!]]), data));
      bothFind(verdicts(repoWith([[c.ids[1]!, Buffer.from('impostor\n')]]), data), c.ids[1]!);
      bothFind(verdicts(repoWith([[c.ids[0]!, Buffer.from('impostor\n')]]), data), c.ids[0]!);
    }
  });

  it('finds a collision below a base --fix-thin appends, with --strict too, and refuses a corrupt base', () => {
    const c = chain(2, (i) => (i === 1 ? 'ref' : 'ofs'), 'thin');
    // The chain with its base left out: its first delta names a base only the repository has.
    const [, first, second] = c.entries as [RawEntry, RawEntry, RawEntry];
    const data = packBytes([first, { ...second, base: 0 }]).data;
    const base: [string, Buffer] = [c.ids[0]!, c.contents[0]!];
    bothAccept(verdicts(repoWith([base, [c.ids[2]!, c.contents[2]!]]), data, ['--fix-thin', '--strict']));
    for (const args of [['--fix-thin'], ['--fix-thin', '--strict']]) {
      bothFind(verdicts(repoWith([base, [c.ids[2]!, Buffer.from('impostor\n')]]), data, args), c.ids[2]!);
    }
    const v = verdicts(repoWith([[c.ids[0]!, Buffer.from('not the base\n')]]), data, ['--fix-thin']);
    assert.match(v.theirs ?? '', new RegExp(`local object ${c.ids[0]} is corrupt`));
    assert.match(v.ours ?? '', new RegExp(`local object ${c.ids[0]} is corrupt`));
  });

  it('refuses, as git does, a known object that cannot be read (a dangling symlink in its place)', () => {
    const c = chain(2, () => 'ofs', 'unreadable');
    const repo = repoWith();
    const file = path.join(repo, 'objects', c.ids[2]!.slice(0, 2), c.ids[2]!.slice(2));
    fs.mkdirSync(path.dirname(file));
    fs.symlinkSync(path.join(work, 'nowhere'), file);
    const v = verdicts(repo, packBytes(c.entries).data);
    assert.match(v.theirs ?? '', new RegExp(`cannot read existing object info ${c.ids[2]}`));
    assert.match(v.ours ?? '', new RegExp(`cannot read existing object ${c.ids[2]}`));
  });

  it('compares a large blob and its deltas, one of them copying 6 MiB in one instruction', () => {
    const lines: string[] = [];
    for (let i = 0; lines.length * 24 < 6 << 20; i++) lines.push(`line ${String(i).padStart(17, '0')}\n`);
    const big = Buffer.from(lines.join(''));
    const ops1: DeltaOp[] = [{ copy: [0, big.length - 100] }, { insert: Buffer.from('a new tail\n') }];
    const big1 = applyOps(big, ops1);
    const ops2: DeltaOp[] = [{ insert: Buffer.from('a new head\n') }, { copy: [0, 0x10000] }, { copy: [0x10000, big1.length - 0x10000] }];
    const big2 = applyOps(big1, ops2);
    const [id, id1, id2] = [big, big1, big2].map((b) => hex(BLOB, b)) as [string, string, string];
    const data = packBytes([
      { type: BLOB, data: big },
      { type: OFS, base: 0, data: deltaOf(big.length, ops1), oid: objectId(BLOB, big1) },
      { type: REF, baseOid: objectId(BLOB, big1), data: deltaOf(big1.length, ops2), oid: objectId(BLOB, big2) },
    ]).data;
    // The same, loose and packed.
    const same = repoWith([[id1, big1]]);
    writePack(path.join(same, 'objects', 'pack'), [{ type: BLOB, data: big }, { type: BLOB, data: big2 }]);
    bothAccept(verdicts(same, data));
    // One byte differs in an alternate's pack; then in the base itself, indexed in place.
    const flipped = (b: Buffer): Buffer => { const c = Buffer.from(b); c[c.length >> 1]! ^= 1; return c; };
    const alternate = repoWith();
    writePack(path.join(alternate, 'objects', 'pack'), [{ type: BLOB, data: flipped(big2), oid: Buffer.from(id2, 'hex') }]);
    const repo = repoWith();
    fs.writeFileSync(path.join(repo, 'objects', 'info', 'alternates'), `${path.join(alternate, 'objects')}\n`);
    bothFind(verdicts(repo, data), id2);
    bothFind(verdicts(repoWith([[id, flipped(big)]]), data, [], { inPlace: true }), id);
  });
});

describe('index-pack collision check, seeded known-object sets over git packs', () => {
  const TYPES: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
  type Rng = () => number;
  const int = (r: Rng, n: number): number => Math.floor(r() * n);
  let src: string, template: string;
  /** One of git's packs, with its objects and, for the thin one, the objects of `old` it may lean on. */
  interface Pack { data: Buffer; file: string; objects: PackedObject[]; thin: boolean; bases: string[] }
  const packs = new Map<string, Pack>();
  const contents = new Map<string, { type: string; data: Buffer }>();

  before(() => {
    src = makeRepo(30, { bare: true, at: path.join(work, 'src.git') });
    git(src, ['branch', '-f', 'old', 'main~10']);
    template = repoWith();
    const old = git(src, ['rev-list', '--objects', 'old']).split('\n').filter(Boolean).map((l) => l.slice(0, 40));
    const made = {
      ofs: gitBuf(src, ['pack-objects', '-q', '--all', '--stdout', '--depth=50', '--delta-base-offset'], ''),
      ref: gitBuf(src, ['pack-objects', '-q', '--all', '--stdout', '--depth=50'], ''),
      thin: gitBuf(src, ['pack-objects', '-q', '--thin', '--stdout', '--revs', '--depth=50', '--delta-base-offset'], 'main\n^old\n'),
    };
    const lister = repoWith();
    gitBuf(lister, ['unpack-objects', '-q'], gitBuf(src, ['pack-objects', '-q', '--revs', '--stdout'], 'old\n'));
    for (const [name, data] of Object.entries(made)) {
      const thin = name === 'thin';
      const hash = git(lister, ['index-pack', '--stdin', ...(thin ? ['--fix-thin'] : [])], data).trim().split(/\s+/).pop()!;
      // A thin pack's objects without the bases git appended to it.
      const objects = packObjects(lister, path.join(lister, 'objects', 'pack', `pack-${hash}.pack`)).slice(0, data.readUInt32BE(8));
      const file = path.join(work, `${name}.pack`);
      fs.writeFileSync(file, data);
      // Not those it sends again (^old leaves out only what the tip of old reaches).
      const bases = thin ? old.filter((id) => !objects.some((o) => o.id === id)) : [];
      packs.set(name, { data, file, objects, thin, bases });
    }
    const ids = git(src, ['rev-list', '--objects', '--all']).split('\n').filter(Boolean).map((l) => l.slice(0, 40));
    const batch = gitBuf(src, ['cat-file', '--batch'], `${ids.join('\n')}\n`);
    for (let at = 0, k = 0; k < ids.length; k++) {
      const nl = batch.indexOf(10, at);
      const [, type, size] = batch.subarray(at, nl).toString().split(' ');
      contents.set(ids[k]!, { type: type!, data: batch.subarray(nl + 1, nl + 1 + Number(size)) });
      at = nl + 2 + Number(size);
    }
  });

  /** `data` changed as a collision would be: another object, a bit flipped, a byte more, or another type. */
  function impostor(r: Rng, type: string, data: Buffer): { type: string; data: Buffer } {
    switch (int(r, 4)) {
      case 0: return { type, data: Buffer.from('impostor\n') };
      case 1: { const c = Buffer.from(data.length ? data : '?'); c[int(r, c.length)]! ^= 1 << int(r, 8); return { type, data: c }; }
      case 2: return { type, data: Buffer.concat([data, Buffer.from('\n')]) };
      default: return { type: type === 'blob' ? 'tree' : 'blob', data };
    }
  }

  /** A repository and its alternate for `pack`, each known object stored once (and `share` of them known). */
  function plant(r: Rng, pack: Pack, repo: string, alternate: string): { known: number; impostors: Set<string>; corrupt: string | null } {
    fs.cpSync(template, repo, { recursive: true });
    fs.mkdirSync(path.join(alternate, 'pack'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'objects', 'info', 'alternates'), `${alternate}\n`);
    const packed: RawEntry[][] = [[], []];
    const store = (id: string, o: { type: string; data: Buffer }): void => {
      // Loose objects are files to write (slowly, on a busy machine): one in sixteen is.
      const where = int(r, 32);
      if (where < 30) packed[where % 2]!.push({ type: TYPES[o.type]!, data: o.data, oid: Buffer.from(id, 'hex') });
      else writeLoose(where === 30 ? path.join(repo, 'objects') : alternate, id, o.type, o.data);
    };
    const share = [0.02, 0.1, 0.5, 0.95, 1][int(r, 5)]!;
    const wanted = [0, 0, 1, 1, 2][int(r, 5)]!;
    const impostors = new Set<string>();
    const known = pack.objects.filter(() => r() < share);
    for (const o of known) {
      const real = contents.get(o.id)!;
      const planted = impostors.size < wanted && r() < 0.3;
      if (planted) impostors.add(o.id);
      store(o.id, planted ? impostor(r, real.type, real.data) : real);
    }
    // A thin pack's bases, one of them now and then corrupt.
    let corrupt: string | null = null;
    for (const id of pack.bases) {
      const real = contents.get(id)!;
      // Not with impostors: which of the two errors comes first is the indexer's order.
      const bad = !corrupt && !impostors.size && r() < 0.02;
      if (bad) corrupt = id;
      store(id, bad ? impostor(r, real.type, real.data) : real);
    }
    packed.forEach((entries, k) => { if (entries.length) writePack(k ? path.join(alternate, 'pack') : path.join(repo, 'objects', 'pack'), entries); });
    return { known: known.length, impostors, corrupt };
  }

  it(`agrees with git over ${ITERATIONS} seeded repositories (seed ${SEED.toString(16)})`, async () => {
    const r = seededRandom(SEED);
    const verdictCount = { accepted: 0, refused: 0 };
    const repo = path.join(work, 'loop.git'), alternate = path.join(work, 'loop-alternate'), out = path.join(work, 'loop-out');
    for (let round = 0; round < ITERATIONS; round++) {
      const name = ['ofs', 'ref', 'thin'][int(r, 3)]!;
      const pack = packs.get(name)!;
      for (const d of [repo, alternate, out]) rmrf(d);
      fs.mkdirSync(out);
      const { known, impostors, corrupt } = plant(r, pack, repo, alternate);
      const strict = r() < 0.3;
      const what = `round ${round}: ${name} pack${strict ? ' --strict' : ''}, ${known} of ${pack.objects.length} known, impostors ${[...impostors].join(' ') || 'none'}`;

      const flags = strict ? ['--strict'] : [];
      const g = pack.thin
        ? spawnSync('git', ['index-pack', ...flags, '--stdin', '--fix-thin', path.join(out, 'git.pack')], { cwd: repo, env: GIT_ENV, input: pack.data })
        : spawnSync('git', ['index-pack', ...flags, '-o', path.join(out, 'git.idx'), pack.file], { cwd: repo, env: GIT_ENV });
      const theirs = g.status === 0 ? null : g.stderr.toString();
      let ours: unknown = null;
      const odb = new ObjectDatabase(path.join(repo, 'objects'));
      // Small base caches make the walk drop and rebuild the bases it holds.
      const options = {
        threads: 1, cacheLimit: [undefined, 1 << 10, 1 << 14][int(r, 3)],
        ...(strict ? { strict: { strict: true }, gitmodules: checkGitmodulesBlob } : {}),
      };
      try {
        if (pack.thin) await indexPack(odb, (async function* () { yield pack.data; })(), { ...options, fixThin: true, packPath: path.join(out, 'ours.pack') });
        else await indexPack(odb, pack.file, { ...options, indexPath: path.join(out, 'ours.idx') });
      } catch (e) {
        ours = e;
      } finally {
        odb.close();
      }

      const message = ours instanceof Error ? ours.message : String(ours);
      assert.equal(ours === null, theirs === null, `${what}: git says ${theirs ?? 'ok'}, tsgit ${ours ? message : 'ok'}`);
      verdictCount[ours ? 'refused' : 'accepted']++;
      if (impostors.size) assert.ok(theirs, `${what}: git accepted`);
      if (!ours) continue;
      assert.ok(ours instanceof GitError && ours.code !== 'internal', `${what}: ${ours instanceof Error ? ours.stack : message}`);
      assert.deepEqual(fs.readdirSync(out).filter((f) => !f.startsWith('git')), [], `${what}: files left by ${message}`);
      const named = /COLLISION FOUND WITH ([0-9a-f]{40})/.exec(message)?.[1];
      if (/COLLISION/.test(theirs!)) {
        // With two impostors each indexer names the first it meets.
        assert.ok(named && impostors.has(named), `${what}: git says ${theirs}, tsgit ${message}`);
        if (impostors.size === 1) assert.match(theirs!, collision(named));
      } else if (/local object/.test(theirs!)) {
        assert.match(theirs!, new RegExp(`local object ${corrupt} is corrupt`), what);
        assert.match(message, new RegExp(`local object ${corrupt} is corrupt`), what);
      } else {
        // A corrupt base the pack does not lean on, but names (with --strict, of another type).
        assert.ok(strict && corrupt && message.includes(corrupt), `${what}: git says ${theirs}, tsgit ${message}`);
      }
    }
    // Neither verdict is rare, or the loop would test little.
    assert.ok(verdictCount.accepted > ITERATIONS / 5 && verdictCount.refused > ITERATIONS / 5, JSON.stringify(verdictCount));
  });
});
