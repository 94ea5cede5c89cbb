import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorruptError, GitError } from '../src/core/errors.js';
import { decodePktLines, FLUSH_PKT, PacketReader, pktLine } from '../src/protocol/pkt-line.js';
import { Band, demuxSideband, encodeSideband, SidebandDemuxer, SidebandMuxer } from '../src/protocol/sideband.js';

function lengths(framed: Buffer): string[] {
  return decodePktLines(framed).map((p) => (p.type === 'data' ? `${p.payload.length + 4}:${p.payload[0]}` : p.type));
}

test('side-band-64k packets carry at most 65515 bytes, exactly filling 65520-byte pkt-lines', () => {
  assert.deepEqual(lengths(encodeSideband(Band.Pack, Buffer.alloc(65515), 'side-band-64k')), ['65520:1']);
  assert.deepEqual(lengths(encodeSideband(Band.Pack, Buffer.alloc(65516), 'side-band-64k')), ['65520:1', '6:1']);
  assert.deepEqual(lengths(encodeSideband(Band.Pack, Buffer.alloc(2 * 65515), 'side-band-64k')), ['65520:1', '65520:1']);
  assert.equal(encodeSideband(Band.Pack, Buffer.alloc(65515), 'side-band-64k').subarray(0, 5).toString('latin1'), 'fff0\x01');
});

test('side-band packets carry at most 995 bytes, exactly filling 1000-byte pkt-lines', () => {
  assert.deepEqual(lengths(encodeSideband(Band.Pack, Buffer.alloc(995), 'side-band')), ['1000:1']);
  assert.deepEqual(lengths(encodeSideband(Band.Pack, Buffer.alloc(996), 'side-band')), ['1000:1', '6:1']);
  assert.equal(encodeSideband(Band.Progress, Buffer.alloc(995), 'side-band').subarray(0, 5).toString('latin1'), '03e8\x02');
  assert.equal(encodeSideband(Band.Progress, Buffer.alloc(0), 'side-band').toString('latin1'), '0005\x02', 'empty band 2 is the v2 keepalive');
});

test('muxed bytes demux back to the same pack and progress lines', async () => {
  const pack = Buffer.alloc(200_000);
  for (let i = 0; i < pack.length; i++) pack[i] = (i * 7919) & 255;
  for (const mode of ['side-band', 'side-band-64k'] as const) {
    const mux = new SidebandMuxer(mode);
    const wire = Buffer.concat([mux.progress('Counting objects: 1\r'), mux.pack(pack.subarray(0, 70_000)),
      mux.progress('Counting objects: 2, done.\nTotal 2 (delta 0)'), mux.pack(pack.subarray(70_000)), mux.progress('\n'), FLUSH_PKT]);
    const progress: string[] = [];
    const chunks: Buffer[] = [];
    for await (const c of demuxSideband(new PacketReader([wire]), { onProgress: (t) => progress.push(t) })) chunks.push(c);
    assert.ok(Buffer.concat(chunks).equals(pack), mode);
    assert.deepEqual(progress, ['Counting objects: 1\r', 'Counting objects: 2, done.\n', 'Total 2 (delta 0)\n'], mode);
  }
});

test('band 3 becomes a GitError carrying the server message', async () => {
  const mux = new SidebandMuxer('side-band-64k');
  const wire = Buffer.concat([mux.pack(Buffer.from('PACK')), mux.error('upload-pack: not our ref 1234\n')]);
  const got: Buffer[] = [];
  await assert.rejects(async () => {
    for await (const c of demuxSideband(new PacketReader([wire]))) got.push(c);
  }, (e: unknown) => e instanceof GitError && e.code === 'remote-error' && e.message === 'remote error: upload-pack: not our ref 1234');
  assert.equal(Buffer.concat(got).toString(), 'PACK');
});

test('malformed side-band streams are refused', async () => {
  const d = new SidebandDemuxer();
  assert.throws(() => d.accept({ type: 'data', payload: Buffer.from('\x04x'), offset: 9 }, 'here'), (e: unknown) => e instanceof CorruptError && /here: invalid side-band band 4/.test(e.message));
  assert.throws(() => d.accept({ type: 'data', payload: Buffer.alloc(0), offset: 0 }, 'here'), /without a band byte/);
  assert.throws(() => d.accept({ type: 'delim', offset: 0 }, 'here'), /unexpected delim packet/);
  await assert.rejects(async () => {
    for await (const _ of demuxSideband(new PacketReader([pktLine('\x01PACK')], 'conn'))) { /* drain */ }
  }, /conn at end of input: side-band stream ended without a flush/);
});
