// index-pack's observer hooks and sink: the header, every entry and the trailer reported as git's
// verify-pack lists them; a hook that throws refuses the pack and leaves nothing behind; a sink of
// one's own receives every byte of the stream once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { indexPack, runPasses, type PackObserver } from '../src/packing/index-pack/index.js';
import { git, gitBuf, makeRepo, rmrf, tmpDir } from './helpers.js';

let repo: string;
let pack: Buffer;
/** git's verify-pack -v: id, type, offset per entry, in pack order. */
let listed: { id: string; type: string; offset: number }[];

before(() => {
  repo = makeRepo(40, { bare: true });
  pack = gitBuf(repo, ['pack-objects', '-q', '--stdout', '--all', '--delta-base-offset'], '');
  const file = path.join(repo, 'objects', 'pack', 'observed.pack');
  fs.writeFileSync(file, pack);
  git(repo, ['index-pack', file]);
  listed = git(repo, ['verify-pack', '-v', file.replace(/\.pack$/, '.idx')]).split('\n')
    .filter(l => /^[0-9a-f]{40} /.test(l))
    .map(l => l.split(/ +/))
    .map(f => ({ id: f[0]!, type: f[1]!, offset: Number(f[4]) }))
    .sort((a, b) => a.offset - b.offset);
});
after(() => rmrf(repo));

test('the observer hears the header, every entry in pack order and the trailer', async () => {
  const seen: { header?: [number, number]; entries: [number, number, number][]; trailer?: string } = { entries: [] };
  const observer: PackObserver = {
    onHeader: (version, count) => { seen.header = [version, count]; },
    onEntry: (i, offset, end) => { seen.entries.push([i, offset, end]); },
    onTrailer: (hash) => { seen.trailer = hash.toString('hex'); },
  };
  const out = tmpDir();
  try {
    const result = await indexPack(path.join(out, 'objects'), Readable.from([pack]), { observer });
    assert.deepEqual(seen.header, [2, listed.length]);
    assert.deepEqual(seen.entries.map(e => e[1]), listed.map(l => l.offset));
    assert.deepEqual(seen.entries.map(e => e[0]), listed.map((_, i) => i));
    for (let i = 1; i < seen.entries.length; i++) assert.equal(seen.entries[i - 1]![2], seen.entries[i]![1]);
    assert.equal(seen.entries.at(-1)![2], pack.length - 20);
    assert.equal(seen.trailer, result.packHash);
    assert.equal(seen.trailer, pack.subarray(pack.length - 20).toString('hex'));
  } finally {
    rmrf(out);
  }
});

test('a hook that throws refuses the pack, and nothing is left in the pack directory', async () => {
  const out = tmpDir();
  try {
    const objects = path.join(out, 'objects');
    await assert.rejects(indexPack(objects, Readable.from([pack]), {
      observer: { onHeader: (_v, count) => { if (count > 10) throw new Error(`too many objects: ${count}`); } },
    }), new RegExp(`too many objects: ${listed.length}`));
    assert.deepEqual(fs.readdirSync(path.join(objects, 'pack')), []);
  } finally {
    rmrf(out);
  }
});

test('a sink of the caller\'s own receives each byte of the stream once, and the passes read it back', async () => {
  const out = tmpDir();
  try {
    const file = path.join(out, 'mirror.pack');
    const fd = fs.openSync(file, 'w+');
    const copy: Buffer[] = [];
    try {
      const result = await runPasses(Readable.from([pack.subarray(0, 1000), pack.subarray(1000)]), {
        name: 'mirror', threads: 1,
        sink: {
          path: file,
          write: (bytes) => { copy.push(Buffer.from(bytes)); fs.writeSync(fd, bytes); },
          writeAt: (bytes, offset) => { fs.writeSync(fd, bytes, 0, bytes.length, offset); },
        },
      });
      assert.ok(Buffer.concat(copy).equals(pack));
      assert.equal(result.count, listed.length);
      const ids = new Set(listed.map(l => l.id));
      for (let i = 0; i < result.count; i++) assert.ok(ids.has(Buffer.from(result.table.ids.subarray(i * 20, i * 20 + 20)).toString('hex')));
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    rmrf(out);
  }
});
