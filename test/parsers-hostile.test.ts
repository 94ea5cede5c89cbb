// Seeded mutation test of the parsers that read untrusted bytes: pack entry headers read through
// the object database, index-pack of mutated packs, the object parsers and fsck checks (commit,
// tag, tree, .gitmodules), the protocol's request readers (upload request, push commands, v2
// command requests) and the .idx and .bitmap readers. The rule is tsgit's: bad input gives a
// GitError, never another exception, never a hang (each case must finish within CASE_MS), and
// index-pack leaves no file half-written (nothing on failure, a pack and its whole index on success).
//
// What it guards: a fuzz campaign found that a pack entry header declaring an impossible size
// (2^31, 2^40 bytes for a few compressed bytes) made ObjectDatabase allocate it before inflating:
// a RangeError from Buffer.allocUnsafe, or gigabytes asked for. entryAt's beyondInflateRatio()
// check in src/odb/database.ts refuses such headers; with that check removed, both tests of the
// first group fail (cases asking for 4 GiB and for 351 MB, past ALLOC_LIMIT). Each failure names
// the part, the case number and the input, so a case can be replayed with the same SEED.
//
// The seeds are made by git here; the PRNG is our own (mulberry32) with a fixed seed, so every run
// tries the same inputs. The whole file runs in about 3 seconds.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { GitError } from '../src/core/errors.js';
import { checkGitmodulesBlob } from '../src/config/gitmodules.js';
import { checkCommit, checkTag, checkTree, parseCommit, parseTag, TreeCursor } from '../src/object/index.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { PackBitmap } from '../src/pack/bitmap/read.js';
import { PackOrder } from '../src/pack/bitmap/pack-order.js';
import { PackIndex } from '../src/pack/idx/read.js';
import { indexPack } from '../src/packing/index-pack/index.js';
import {
  PacketReader, parseFetchArgs, parseLsRefsArgs, readCommandRequest, readHaves, readPushOptions, readPushRequest,
  readUploadRequest,
} from '../src/protocol/index.js';
import { git, gitBuf, pktBytes, rmrf, seededRandom, tmpDir } from './helpers.js';
import { writePack, type RawEntry } from './pack-builder.js';

const SEED = 0x5eed22;
/** A case that takes longer than this is a hang (the machine is shared, hence the margin). */
const CASE_MS = 2000;
/** No case's input is more than a few KiB: no reader of one should ask for more than this. */
const ALLOC_LIMIT = 64 << 20;

type Rng = () => number;
const int = (r: Rng, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[int(r, xs.length)]!;

const INTERESTING = [0, 1, 0x7f, 0x80, 0xff, 0x20, 0x0a, 0x00, 0x30, 0x39, 0x66, 0x3e, 0x3c, 0x2d];

/** One to four byte-level edits: flips, interesting bytes, inserts, deletes, cuts, 32-bit values, splices, dictionary words. */
function mutate(seed: Buffer, r: Rng, dict: readonly string[] = []): Buffer {
  let b = Buffer.from(seed);
  for (let k = 1 + int(r, 4); k > 0; k--) {
    const at = b.length ? int(r, b.length) : 0;
    switch (int(r, 10)) {
      case 0: if (b.length) b[at]! ^= 1 << int(r, 8); break;
      case 1: if (b.length) b[at] = pick(r, INTERESTING); break;
      case 2: b = Buffer.concat([b.subarray(0, at), Buffer.from([int(r, 256)]), b.subarray(at)]); break;
      case 3: b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + int(r, 8))]); break;
      case 4: b = b.subarray(0, at); break;
      case 5: if (b.length >= 4) b.writeUInt32BE(pick(r, [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, b.length, int(r, 1 << 16)]), int(r, b.length - 3)); break;
      case 6: { const from = int(r, b.length + 1); b = Buffer.concat([b.subarray(0, at), b.subarray(from, from + int(r, 64)), b.subarray(at)]); break; }
      case 7: if (dict.length) b = Buffer.concat([b.subarray(0, at), Buffer.from(pick(r, dict), 'latin1'), b.subarray(at)]); break;
      case 8: if (b.length) b[at] = (b[at]! + (r() < 0.5 ? 1 : 255)) & 0xff; break;
      case 9: for (let i = 0, n = 1 + int(r, 16); i < n && at + i < b.length; i++) b[at + i] = int(r, 256); break;
    }
  }
  return b;
}

/** The input of a failed case, short enough for a message. */
const shown = (input: Buffer) => (input.length <= 4096 ? input.toString('base64') : `${input.length} bytes (seed ${SEED.toString(16)})`);

/** What a case may throw: a GitError that is not a bug reported from a worker ('internal'). */
function assertGitError(e: unknown, what: string, input: Buffer): void {
  if (e instanceof GitError && e.code !== 'internal') return;
  assert.fail(`${what}: ${e instanceof Error ? e.stack : String(e)}\ninput: ${shown(input)}`);
}

function assertPrompt(started: number, what: string, input: Buffer): void {
  const ms = Date.now() - started;
  assert.ok(ms < CASE_MS, `${what}: took ${ms} ms\ninput: ${shown(input)}`);
}

async function hostile(what: string, input: Buffer, fn: () => unknown): Promise<boolean> {
  const started = Date.now();
  try {
    await fn();
    return true;
  } catch (e) {
    assertGitError(e, what, input);
    return false;
  } finally {
    assertPrompt(started, what, input);
  }
}

/** Runs `fn` with Buffer's allocators refusing sizes past ALLOC_LIMIT, as a RangeError naming the size. */
function allocationBounded<T>(fn: () => T): T {
  const saved = { allocUnsafe: Buffer.allocUnsafe, allocUnsafeSlow: Buffer.allocUnsafeSlow, alloc: Buffer.alloc };
  const guard = <F extends (size: number, ...rest: never[]) => Buffer>(f: F): F => ((size: number, ...rest: never[]) => {
    if (size > ALLOC_LIMIT) throw new RangeError(`asked to allocate ${size} bytes`);
    return f(size, ...rest);
  }) as F;
  Buffer.allocUnsafe = guard(saved.allocUnsafe);
  Buffer.allocUnsafeSlow = guard(saved.allocUnsafeSlow);
  Buffer.alloc = guard(saved.alloc);
  try {
    return fn();
  } finally {
    Object.assign(Buffer, saved);
  }
}

// ---------------------------------------------------------------------------------------------
// Seeds, made by git.

let work: string;
/** A pack git wrote (OFS deltas) and its .idx. */
let packBytes: Buffer, idxBytes: Buffer;
/** Two .bitmaps and the .idx of each one's pack: plain, and with a lookup table and name-hash cache. */
const bitmaps: { bitmap: Buffer; idx: Buffer }[] = [];
/** The same objects with REF deltas, as a client without ofs-delta receives them. */
let refPack: Buffer;
/** The pack's entries; `offset` and `dataAt` are where each entry and its zlib stream start in packBytes. */
let entries: (RawEntry & { offset: number; dataAt: number })[];
const objects = { commit: [] as Buffer[], tree: [] as Buffer[], tag: [] as Buffer[], gitmodules: [] as Buffer[] };
let oids: string[];

before(() => {
  work = tmpDir('tsgit-hostile-');
  const repo = path.join(work, 'repo');
  git(work, ['init', '-q', '-b', 'main', repo]);
  const lines: string[] = [];
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}`;
  const gitmodules = '[submodule "lib"]\n\tpath = lib\n\turl = https://example.com/lib.git\n\tbranch = main\n';
  for (let i = 1; i <= 12; i++) {
    const big = Array.from({ length: 60 }, (_, k) => `line ${k} of a file edited once per commit${k === i ? ' (edited)' : ''}\n`).join('');
    lines.push('commit refs/heads/main', `mark :${i}`, `author A U Thor <a@example.com> ${1700000000 + i} +0100`,
      `committer C O Mitter <c@example.com> ${1700000000 + i} -0230`, data(`commit ${i}\n\nbody ${i}\n`));
    if (i > 1) lines.push(`from :${i - 1}`);
    if (i === 8) lines.push('merge :3');
    lines.push('M 100644 inline dir/sub/big.txt', data(big), `M 100755 inline run${i % 3}.sh`, data(`#!/bin/sh\necho ${i}\n`));
    if (i === 2) {
      lines.push('M 100644 inline .gitmodules', data(gitmodules), 'M 160000 1111111111111111111111111111111111111111 lib',
        'M 120000 inline link', data('dir/sub/big.txt'));
    }
  }
  lines.push('tag v1', 'from :12', 'tagger T Agger <t@example.com> 1700000100 +0000', data('release 1\n'), '');
  git(repo, ['fast-import', '--quiet'], lines.join('\n'));
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  git(repo, ['-c', 'pack.writeBitmapHashCache=false', '-c', 'pack.writeBitmapLookupTable=false', 'repack', '-adfq', '--write-bitmap-index']);
  const packName = () => fs.readdirSync(packDir).find(f => f.endsWith('.pack'))!.slice(0, -5);
  // A bitmap with a lookup table and a name-hash cache, then the pack the rest uses, with a plain one.
  git(repo, ['-c', 'pack.writeBitmapHashCache=true', '-c', 'pack.writeBitmapLookupTable=true', 'repack', '-adfq', '--write-bitmap-index']);
  let name = packName();
  bitmaps.push({ bitmap: fs.readFileSync(path.join(packDir, `${name}.bitmap`)), idx: fs.readFileSync(path.join(packDir, `${name}.idx`)) });
  git(repo, ['-c', 'pack.writeBitmapHashCache=false', '-c', 'pack.writeBitmapLookupTable=false', 'repack', '-adfq', '--write-bitmap-index']);
  name = packName();
  packBytes = fs.readFileSync(path.join(packDir, `${name}.pack`));
  idxBytes = fs.readFileSync(path.join(packDir, `${name}.idx`));
  bitmaps.push({ bitmap: fs.readFileSync(path.join(packDir, `${name}.bitmap`)), idx: idxBytes });
  refPack = gitBuf(repo, ['pack-objects', '-q', '--all', '--stdout'], '');

  // The pack's entries as pack-builder input: header fields parsed, zlib stream kept as it is.
  const verify = git(repo, ['verify-pack', '-v', path.join(packDir, `${name}.idx`)]);
  const rows = verify.split('\n').filter(l => /^[0-9a-f]{40} /.test(l)).map(l => l.split(/\s+/));
  const byOffset = new Map<number, number>();
  entries = rows.map(([oid, , , inPack, offset], i) => {
    const start = Number(offset), end = start + Number(inPack);
    byOffset.set(start, i);
    let p = start, c = packBytes[p++]!;
    const type = (c >> 4) & 7;
    let size = c & 15;
    for (let shift = 4; c & 0x80; shift += 7) { c = packBytes[p++]!; size += (c & 0x7f) * 2 ** shift; }
    const e: RawEntry & { offset: number; dataAt: number } = { type, size, data: Buffer.alloc(0), oid: Buffer.from(oid!, 'hex'), offset: start, dataAt: 0 };
    if (type === 6) {
      c = packBytes[p++]!;
      let distance = c & 0x7f;
      while (c & 0x80) { c = packBytes[p++]!; distance = (distance + 1) * 128 + (c & 0x7f); }
      e.ofsDistance = start - distance; // an offset for now: an index below
    }
    if (type === 7) { e.baseOid = packBytes.subarray(p, p + 20); p += 20; }
    e.dataAt = p;
    e.rawZlib = packBytes.subarray(p, end);
    return e;
  });
  for (const e of entries) if (e.type === 6) { e.base = byOffset.get(e.ofsDistance!); delete e.ofsDistance; }
  assert.ok(entries.some(e => e.type === 6), 'git deltified the pack');
  oids = entries.map(e => e.oid!.toString('hex'));

  const batch = gitBuf(repo, ['cat-file', '--batch', '--batch-all-objects']);
  for (let p = 0; p < batch.length;) {
    const nl = batch.indexOf(0x0a, p);
    const [, type, size] = batch.toString('latin1', p, nl).split(' ');
    const content = batch.subarray(nl + 1, nl + 1 + Number(size));
    if (type === 'commit' || type === 'tree' || type === 'tag') objects[type].push(content);
    if (type === 'blob' && content.toString().startsWith('[submodule')) objects.gitmodules.push(content);
    p = nl + 1 + Number(size) + 1;
  }
  objects.commit.push(Buffer.from(objects.commit[0]!.toString('latin1').replace('\n\n',
    '\nencoding ISO-8859-1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\n'), 'latin1'));
  objects.gitmodules.push(Buffer.from('[submodule "a"]\n\tpath = "quoted\\tpath" ; comment\n\turl = ../x\n[submodule "b.c"] url=-x\n'));
});

after(() => rmrf(work));

// ---------------------------------------------------------------------------------------------
// Pack entries, structurally: header fields and delta bases rewritten, the pack and .idx rebuilt.

const SIZES = (size: number) => [0, 1, size - 1, size + 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40, 2 ** 53 - 1];

/**
 * One to three rewrites of random entries: type, size, delta base (OFS, REF, cycles), zlib stream,
 * delta payload. Returns the entries and the ones rewritten.
 */
function mutateEntries(r: Rng): { es: RawEntry[]; touched: number[] } {
  const es: RawEntry[] = entries.map(({ offset: _o, dataAt: _d, ...e }) => e);
  const offsets = entries.map(e => e.offset);
  const touched: number[] = [];
  for (let k = 1 + int(r, 3); k > 0; k--) {
    const i = int(r, es.length), e = es[i]!;
    touched.push(i);
    const asOfs = (distance: number) => { e.type = 6; delete e.base; delete e.baseOid; e.ofsDistance = distance; };
    const asRef = (oid: Buffer) => { e.type = 7; delete e.base; delete e.ofsDistance; e.baseOid = oid; };
    switch (int(r, 8)) {
      case 0: {
        const type = int(r, 8);
        if (type === 6) asOfs(offsets[i]! - offsets[int(r, i + 1)]!);
        else if (type === 7) asRef(es[int(r, es.length)]!.oid!);
        else e.type = type;
        break;
      }
      case 1: e.size = pick(r, SIZES(e.size!)); break;
      case 2: asOfs(pick(r, [0, 1, offsets[i]!, offsets[i]! - 12, offsets[i]! + 1, 2 ** 30, int(r, 400)])); break;
      case 3: asRef(pick(r, [Buffer.alloc(20, int(r, 256)), e.oid!, es[int(r, es.length)]!.oid!])); break;
      case 4: { // two entries, each the other's base
        const j = int(r, es.length);
        es[j] = { ...es[j]!, type: 7, baseOid: e.oid!, base: undefined, ofsDistance: undefined };
        asRef(es[j]!.oid!);
        break;
      }
      case 5: e.rawZlib = pick(r, [e.rawZlib!.subarray(0, int(r, e.rawZlib!.length)), Buffer.concat([e.rawZlib!, Buffer.from([int(r, 256), int(r, 256)])]), mutate(e.rawZlib!, r)]); break;
      case 6: case 7: { // the inflated payload (for a delta, its instructions), recompressed
        const payload = mutate(zlib.inflateSync(e.rawZlib!), r);
        e.rawZlib = zlib.deflateSync(payload);
        if (r() < 0.7) e.size = payload.length;
        break;
      }
    }
  }
  return { es, touched };
}

describe('pack entry headers through the object database', () => {
  let objectsDir: string;
  before(() => {
    objectsDir = path.join(work, 'odb', 'objects');
    fs.mkdirSync(path.join(objectsDir, 'pack'), { recursive: true });
  });

  /**
   * Reads (info, then the whole object) the entries a case changed and a dozen more (the deltas
   * on top of them among them, often); each read must succeed or give a GitError.
   */
  async function readSome(what: string, input: Buffer, touched: number[], r: Rng): Promise<void> {
    const db = new ObjectDatabase(objectsDir);
    try {
      for (const i of [...touched, ...Array.from({ length: 12 }, () => int(r, oids.length))]) {
        const oid = Buffer.from(oids[i]!, 'hex');
        await hostile(what, input, () => allocationBounded(() => { db.info(oid); db.read(oid); }));
      }
    } finally {
      db.close();
    }
  }

  function clearPacks(): void {
    for (const f of fs.readdirSync(path.join(objectsDir, 'pack'))) fs.rmSync(path.join(objectsDir, 'pack', f));
  }

  test('rewritten sizes, types and delta bases (pack and .idx rebuilt)', async () => {
    const r = seededRandom(SEED);
    for (let n = 0; n < 250; n++) {
      clearPacks();
      const { es, touched } = mutateEntries(r);
      const { pack } = writePack(path.join(objectsDir, 'pack'), es);
      await readSome(`structural case ${n}`, fs.readFileSync(pack), touched, r);
    }
  });

  test('header bytes mutated in place (git\'s .idx kept)', async () => {
    const r = seededRandom(SEED + 1);
    for (let n = 0; n < 250; n++) {
      clearPacks();
      const i = int(r, entries.length), e = entries[i]!;
      // The header, the delta base and the first bytes of the zlib stream.
      const end = e.dataAt + 2;
      const mutated = Buffer.concat([packBytes.subarray(0, e.offset), mutate(packBytes.subarray(e.offset, end), r), packBytes.subarray(end)]);
      fs.writeFileSync(path.join(objectsDir, 'pack', 'pack-x.pack'), mutated);
      fs.writeFileSync(path.join(objectsDir, 'pack', 'pack-x.idx'), idxBytes);
      await readSome(`in-place case ${n}`, mutated, [i], r);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// index-pack of mutated packs, streamed into a repository or indexed in place.

describe('index-pack of mutated packs', () => {
  /** A pack from rewritten entries, or git's packs (OFS and REF deltas) with bytes mutated, the trailer fixed up or not. */
  function mutatedPack(r: Rng, scratch: string): Buffer {
    if (r() < 0.5) {
      const { pack } = writePack(scratch, mutateEntries(r).es);
      const bytes = fs.readFileSync(pack);
      for (const f of fs.readdirSync(scratch)) fs.rmSync(path.join(scratch, f));
      return bytes;
    }
    const bytes = mutate(r() < 0.5 ? packBytes : refPack, r, ['PACK', '\0\0\0\x02', '\xff\xff\xff\xff']);
    if (bytes.length > 32 && r() < 0.5) {
      const body = bytes.subarray(0, bytes.length - 20);
      crypto.createHash('sha1').update(body).digest().copy(bytes, body.length);
    }
    return bytes;
  }

  /** The pack in chunks of random sizes, as a connection delivers it. */
  async function* chunked(bytes: Buffer, r: Rng): AsyncGenerator<Buffer> {
    for (let at = 0; at < bytes.length;) {
      const n = 1 + int(r, r() < 0.3 ? 16 : 2000);
      yield bytes.subarray(at, at + n);
      at += n;
    }
  }

  test('every case indexes the pack whole or fails with a GitError, leaving no file behind', async () => {
    const r = seededRandom(SEED + 2);
    const objectsDir = path.join(work, 'ip', 'objects'), packDir = path.join(objectsDir, 'pack');
    const inPlace = path.join(work, 'ip', 'in-place'), scratch = path.join(work, 'ip', 'scratch');
    for (const d of [packDir, inPlace, scratch]) fs.mkdirSync(d, { recursive: true });
    let accepted = 0;
    for (let n = 0; n < 200; n++) {
      const what = `index-pack case ${n}`;
      const bytes = mutatedPack(r, scratch);
      const fromFile = r() < 0.3;
      const strict = r() < 0.5 ? {} : null;
      let dir: string, input: string | AsyncIterable<Buffer>;
      if (fromFile) {
        dir = inPlace;
        input = path.join(inPlace, 'in.pack');
        fs.writeFileSync(input, bytes);
      } else {
        dir = packDir;
        input = chunked(bytes, r);
      }
      const before = fs.readdirSync(dir);
      let result: Awaited<ReturnType<typeof indexPack>> | undefined;
      await hostile(what, bytes, async () => {
        result = await indexPack(objectsDir, input, { threads: 1, strict, gitmodules: checkGitmodulesBlob, fixThin: false });
      });
      const left = fs.readdirSync(dir).filter(f => !before.includes(f));
      if (result) {
        accepted++;
        // A pack and its whole index: the .idx lists every object.
        assert.deepEqual(left.sort(), [result.packPath, result.indexPath].map(p => path.basename(p)).sort(), `${what}: files`);
        assert.equal(new PackIndex(fs.readFileSync(result.indexPath), result.indexPath).count, result.objects, `${what}: .idx`);
      } else {
        assert.deepEqual(left, [], `${what}: files left behind\ninput: ${shown(bytes)}`);
      }
      for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f));
    }
    assert.ok(accepted > 0 && accepted < 200, `${accepted} of 200 mutated packs accepted`);
  });
});

// ---------------------------------------------------------------------------------------------
// Object parsers and fsck checks.

/** `cases` mutations of the seeds, each given to `fn`; the seeds themselves must pass. */
async function fuzz(what: string, seeds: readonly Buffer[], cases: number, seed: number, dict: readonly string[],
  fn: (input: Buffer) => unknown): Promise<void> {
  assert.ok(seeds.length > 0, `${what}: no seeds`);
  for (const s of seeds) assert.ok(await hostile(`${what} seed`, s, () => fn(Buffer.from(s))), `${what}: a seed is refused`);
  const r = seededRandom(seed);
  for (let n = 0; n < cases; n++) {
    const input = mutate(pick(r, seeds), r, dict);
    await hostile(`${what} case ${n}`, input, () => fn(input));
  }
}

const OBJECT_DICT = ['tree ', 'parent ', 'author ', 'committer ', '\n', ' <', '> ', ' +0000', ' -0130', '-1', '99999999999999999999',
  '18446744073709551616', 'object ', 'type ', 'tag ', 'tagger ', 'encoding ', 'gpgsig ', '\n ', '\0', '040000 ', '100664 ',
  '160000 ', '120000 ', '.gitmodules', '.git', '..', '.', 'GIT~1', '.GIT', '.git\u200c', '/', '[submodule "x"]\n', 'url = ',
  'path = ', '\\', '"', '-', ';'];

describe('object parsers', () => {
  const label = () => 'hostile object';
  const treeWalk = (b: Buffer) => { const c = new TreeCursor(b, 0, b.length, label); while (c.next()) c.name(); };
  test('commit', async () => {
    await fuzz('parseCommit', objects.commit, 300, SEED + 10, OBJECT_DICT, b => parseCommit(b, label));
    await fuzz('checkCommit', objects.commit, 300, SEED + 11, OBJECT_DICT, b => checkCommit(b));
  });
  test('tag', async () => {
    await fuzz('parseTag', objects.tag, 300, SEED + 12, OBJECT_DICT, b => parseTag(b, label));
    await fuzz('checkTag', objects.tag, 300, SEED + 13, OBJECT_DICT, b => checkTag(b));
  });
  test('tree', async () => {
    await fuzz('TreeCursor', objects.tree, 300, SEED + 14, OBJECT_DICT, treeWalk);
    await fuzz('checkTree', objects.tree, 300, SEED + 15, OBJECT_DICT, b => checkTree(b, {}, () => {}));
  });
  test('.gitmodules', async () => {
    await fuzz('checkGitmodulesBlob', objects.gitmodules, 300, SEED + 16, OBJECT_DICT, b => checkGitmodulesBlob(b));
  });
});

// ---------------------------------------------------------------------------------------------
// Protocol requests a server reads: framing mutated, or one line's payload mutated and reframed.

const H = '1'.repeat(40), T = 'c542c7f1827372240a3a0cf9658beb135f7c42f9', Z = '0'.repeat(40);
const FLUSH = 0, DELIM = 1;
type Line = string | typeof FLUSH | typeof DELIM;
const frame = (lines: readonly Line[]) => Buffer.concat(lines.map(l => (l === FLUSH ? Buffer.from('0000') : l === DELIM ? Buffer.from('0001') : pktBytes(l))));
const PROTOCOL_DICT = [' ', '\n', '\0', '=', 'HEAD', 'refs/heads/', '^{}', H, Z, 'shallow ', 'deepen ', 'deepen-since ', 'deepen-not ',
  'filter ', 'blob:limit=', 'tree:', 'sparse:oid=', 'combine:', '%2B', 'want ', 'have ', 'done', '0000', '0001', 'fff0', 'ffff',
  'command=', 'object-format=sha256', 'push-cert', 'report-status', 'side-band', 'side-band-64k', 'agent='];

async function fuzzProtocol(what: string, seeds: readonly Line[][], cases: number, seed: number, read: (s: PacketReader) => Promise<unknown>): Promise<void> {
  for (const s of seeds) assert.ok(await hostile(`${what} seed`, frame(s), () => read(new PacketReader([frame(s)]))), `${what}: a seed is refused`);
  const r = seededRandom(seed);
  for (let n = 0; n < cases; n++) {
    const lines = [...pick(r, seeds)];
    let input: Buffer;
    if (r() < 0.5) {
      input = mutate(frame(lines), r, PROTOCOL_DICT);
    } else {
      const i = int(r, lines.length), l = lines[i]!;
      lines[i] = typeof l === 'string' ? mutate(Buffer.from(l), r, PROTOCOL_DICT).toString('latin1') : pick(r, [FLUSH, DELIM, 'done\n']);
      input = frame(lines);
    }
    const chunks: Buffer[] = [];
    for (let at = 0; at < input.length;) { const k = 1 + int(r, 40); chunks.push(input.subarray(at, at + k)); at += k; }
    await hostile(`${what} case ${n}`, input, () => read(new PacketReader(chunks, 'hostile request')));
  }
}

describe('protocol request readers', () => {
  const caps = 'multi_ack_detailed thin-pack side-band-64k ofs-delta shallow deepen-since deepen-not deepen-relative no-progress include-tag allow-tip-sha1-in-want filter agent=git/2.39.2 object-format=sha1';
  test('upload request and haves (v0)', async () => {
    await fuzzProtocol('upload request', [
      [`want ${H} ${caps}\n`, `want ${T}\n`, `shallow ${H}\n`, 'deepen-since 1700000000\n', 'deepen-not refs/heads/x\n', 'filter blob:limit=1k\n', FLUSH, `have ${H}\n`, `have ${T}\n`, FLUSH, 'done\n'],
      [`want ${H} side-band\n`, 'deepen 3\n', FLUSH, `have ${T}\n`, 'done\n'],
    ], 300, SEED + 20, async s => {
      if (await readUploadRequest(s)) while (!(await readHaves(s)).done);
    });
  });
  test('push commands and options', async () => {
    await fuzzProtocol('push request', [
      [`shallow ${H}\n`, `${Z} ${H} refs/heads/main\0report-status report-status-v2 side-band-64k quiet atomic ofs-delta push-options object-format=sha1 agent=git/2.39\n`,
        `${H} ${Z} refs/heads/x\n`, `${H} ${T} refs/tags/v1\n`, FLUSH, 'opt1\n', 'ci.skip=1\n', FLUSH],
      [`${H} ${T} refs/heads/main\0 report-status\n`, FLUSH],
    ], 300, SEED + 21, async s => {
      const req = await readPushRequest(s);
      if (req?.capabilities.some(c => c.name === 'push-options')) await readPushOptions(s);
    });
  });
  test('v2 command requests', async () => {
    await fuzzProtocol('v2 command request', [
      ['command=fetch\n', 'agent=git/2.39\n', 'object-format=sha1\n', DELIM, 'thin-pack\n', 'ofs-delta\n', `want ${H}\n`, 'want-ref refs/heads/main\n',
        `have ${T}\n`, `shallow ${H}\n`, 'deepen 3\n', 'deepen-relative\n', 'filter tree:0\n',
        'include-tag\n', 'no-progress\n', 'done\n', 'wait-for-done\n', 'packfile-uris https,http\n', 'sideband-all\n', FLUSH],
      ['command=fetch\n', DELIM, `want ${T}\n`, 'deepen-since 1000\n', 'deepen-not main\n', 'done\n', FLUSH],
      ['command=ls-refs\n', 'agent=git/2.39\n', DELIM, 'peel\n', 'symrefs\n', 'unborn\n', 'ref-prefix refs/heads/\n', 'ref-prefix HEAD\n', FLUSH],
    ], 300, SEED + 22, async s => {
      for (let c = await readCommandRequest(s); c; c = await readCommandRequest(s)) {
        if (c.command === 'fetch') parseFetchArgs(c.args, 'hostile');
        else if (c.command === 'ls-refs') parseLsRefsArgs(c.args, 'hostile');
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------
// .idx (v1 and v2) and .bitmap readers.

describe('.idx and .bitmap readers', () => {
  /** The SHA-1 trailer recomputed, half the time, so a mutation gets past the checksum to the tables. */
  const trailerFixed = (b: Buffer, r: Rng) => {
    if (b.length > 40 && r() < 0.5) crypto.createHash('sha1').update(b.subarray(0, b.length - 20)).digest().copy(b, b.length - 20);
    return b;
  };

  test('.idx', async () => {
    const v1 = path.join(work, 'v1.idx');
    fs.writeFileSync(path.join(work, 'v1.pack'), packBytes);
    git(work, ['index-pack', '--index-version=1', '-o', v1, path.join(work, 'v1.pack')]);
    const ids = oids.map(o => Buffer.from(o, 'hex'));
    const r = seededRandom(SEED + 30);
    await fuzz('PackIndex', [idxBytes, fs.readFileSync(v1)], 300, SEED + 31, [], b => {
      const ix = new PackIndex(trailerFixed(b, r), 'hostile.idx');
      for (const o of ids) ix.find(o);
      for (let i = 0; i < Math.min(ix.count, 200); i++) { ix.offset(i); ix.crc(i); ix.oid(i); }
      ix.packChecksum();
    });
  });

  test('.bitmap', async () => {
    const r = seededRandom(SEED + 32);
    for (const [k, { bitmap, idx }] of bitmaps.entries()) {
      const index = new PackIndex(idx, 'hostile.idx');
      const order = PackOrder.fromOffsets(index);
      await fuzz(`PackBitmap ${k}`, [bitmap], 150, SEED + 33 + k, [], b => {
        const pb = PackBitmap.fromBuffer(trailerFixed(b, r), 'hostile.bitmap', index, order);
        for (const c of pb.commits()) pb.bitmapForIndex(c);
        for (let p = 0; p < pb.count; p++) { pb.typeAt(p); pb.nameHashAt(p); }
      });
    }
  });
});
