import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { CorruptError } from '../src/core/errors.js';
import {
  decodePktLines, DELIM_PKT, FLUSH_PKT, MAX_PKT_PAYLOAD, PacketReader, pktLine, PktLineDecoder, readPackets,
  RESPONSE_END_PKT, stripLf, type Packet,
} from '../src/protocol/pkt-line.js';

function describe(p: Packet): string {
  return p.type === 'data' ? `data@${p.offset}:${p.payload.toString('latin1')}` : `${p.type}@${p.offset}`;
}

/** Feeds `data` in the given chunk sizes (cycled), collecting packets the way a socket reader would. */
function decodeChunked(data: Buffer, sizes: number[]): string[] {
  const d = new PktLineDecoder('test');
  const out: string[] = [];
  for (let off = 0, i = 0; off < data.length; i++) {
    const n = sizes[i % sizes.length]!;
    d.push(data.subarray(off, off + n));
    off += n;
    for (let p = d.next(); p; p = d.next()) out.push(describe(p));
  }
  d.finish();
  return out;
}

test('encoders write the examples from gitprotocol-common', () => {
  assert.equal(pktLine('a\n').toString(), '0006a\n');
  assert.equal(pktLine('a').toString(), '0005a');
  assert.equal(pktLine('foobar\n').toString(), '000bfoobar\n');
  assert.equal(pktLine('').toString(), '0004');
  assert.equal(pktLine(Buffer.from([0, 255])).toString('latin1'), '0006\0\xff');
  assert.equal(pktLine('é\n').toString(), '0007é\n', 'length counts UTF-8 bytes');
  assert.equal(FLUSH_PKT.toString() + DELIM_PKT.toString() + RESPONSE_END_PKT.toString(), '000000010002');
  assert.equal(pktLine(Buffer.alloc(MAX_PKT_PAYLOAD)).subarray(0, 4).toString(), 'fff0');
  assert.throws(() => pktLine(Buffer.alloc(MAX_PKT_PAYLOAD + 1)), /65517 bytes exceeds/);
});

test('decoder round-trips every packet kind, whatever the chunking', () => {
  const big = Buffer.alloc(MAX_PKT_PAYLOAD, 0x61);
  const stream = Buffer.concat([pktLine('a\n'), FLUSH_PKT, pktLine(''), DELIM_PKT, pktLine(big), RESPONSE_END_PKT, pktLine('z')]);
  const whole = decodeChunked(stream, [stream.length]);
  assert.deepEqual(whole.map((s) => s.slice(0, 20)), [
    'data@0:a\n', 'flush@6', 'data@10:', 'delim@14', `data@18:${'a'.repeat(12)}`, 'response-end@65538', 'data@65542:z',
  ]);
  for (const sizes of [[1], [2, 3], [4], [5, 1, 7], [65519], [65521, 3]]) {
    assert.deepEqual(decodeChunked(stream, sizes), whole, `chunks ${sizes}`);
  }
});

test('a packet inside one chunk is a view of it; a split one is copied once', () => {
  const chunk = Buffer.concat([pktLine('hello\n'), pktLine('split')]);
  const d = new PktLineDecoder();
  const head = chunk.subarray(0, chunk.length - 2);
  d.push(head);
  const first = d.next();
  assert.ok(first && first.type === 'data');
  chunk[4] = 0x48;
  assert.equal(first.payload.toString(), 'Hello\n', 'payload shares the chunk\'s memory');
  assert.equal(d.next(), null);
  d.push(chunk.subarray(chunk.length - 2));
  const second = d.next();
  assert.ok(second && second.type === 'data');
  head.fill(0x21);
  assert.equal(second.payload.toString(), 'split', 'a packet split across chunks owns its bytes');
  d.finish();
});

test('push before the previous chunk is drained is refused', () => {
  const d = new PktLineDecoder();
  d.push(Buffer.from('0005a0005b'));
  d.next();
  assert.throws(() => d.push(Buffer.from('0000')), /before next\(\) consumed/);
});

function decodeError(bytes: string | Buffer): Error {
  try {
    decodePktLines(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes, 'test input');
  } catch (e) {
    assert.ok(e instanceof CorruptError, `expected CorruptError, got ${e}`);
    return e;
  }
  assert.fail(`accepted ${JSON.stringify(bytes.toString())}`);
}

test('malformed lengths are rejected with what came in and where', () => {
  assert.match(decodeError('0003').message, /test input: invalid pkt-line length "0003" at offset 0: 0003 is not a valid packet/);
  assert.match(decodeError('0006a\nzzzz').message, /invalid pkt-line length "zzzz" at offset 6: byte 6 is not a hex digit/);
  assert.match(decodeError('0000fff1').message, /"fff1" at offset 4: 65521 exceeds the maximum of 65520/);
  assert.match(decodeError('ffff').message, /65535 exceeds/);
  assert.match(decodeError('00-1').message, /"00-1" at offset 0: byte 2 is not a hex digit/);
  assert.match(decodeError(' 004').message, /byte 0 is not a hex digit/);
  assert.match(decodeError('000ahello').message, /truncated pkt-line at offset 0: length 10 declared, stream ended after 9 bytes/);
  assert.match(decodeError('0000000').message, /truncated pkt-line at offset 4: stream ended after 3 of 4 length bytes \("000"\)/);
  assert.doesNotThrow(() => decodePktLines(Buffer.from('000A012345')), 'upper-case hex is accepted, as by git');
});

test('a bad length byte is refused as soon as it arrives, before the rest of the header', () => {
  const d = new PktLineDecoder('socket');
  d.push(Buffer.from('0005a0'));
  assert.equal(d.next()?.type, 'data');
  assert.equal(d.next(), null);
  d.push(Buffer.from('g'));
  assert.throws(() => d.next(), /socket: invalid pkt-line length "0g" at offset 5: byte 6/);
  assert.throws(() => d.next(), /byte 6/, 'a failed decoder stays failed');
});

test('0004 decodes as an empty data packet, distinct from flush', () => {
  assert.deepEqual(decodePktLines(Buffer.from('00040000')).map((p) => p.type), ['data', 'flush']);
  const [p] = decodePktLines(Buffer.from('0004'));
  assert.ok(p && p.type === 'data' && p.payload.length === 0);
});

test('stripLf removes exactly one trailing LF', () => {
  assert.equal(stripLf(Buffer.from('a\n\n')).toString(), 'a\n');
  assert.equal(stripLf(Buffer.from('a')).toString(), 'a');
  assert.equal(stripLf(Buffer.alloc(0)).length, 0);
});

test('PacketReader over a Readable: peek, read, then the raw bytes after the last packet', async () => {
  const bytes = Buffer.concat([pktLine('NAK\n'), Buffer.from('PACK raw bytes that are not pkt-lines')]);
  const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 12), bytes.subarray(12)];
  const reader = new PacketReader(Readable.from(chunks), 'upload-pack stdout');
  assert.equal((await reader.peek())?.type, 'data');
  const nak = await reader.read();
  assert.ok(nak && nak.type === 'data');
  assert.equal(nak.payload.toString(), 'NAK\n');
  const rest: Buffer[] = [];
  for await (const b of reader.rest()) rest.push(b);
  assert.equal(Buffer.concat(rest).toString(), 'PACK raw bytes that are not pkt-lines');
});

test('readPackets iterates a stream and reports truncation at its end', async () => {
  const seen: string[] = [];
  for await (const p of readPackets(Readable.from([Buffer.from('0006a\n00'), Buffer.from('00')]))) seen.push(describe(p));
  assert.deepEqual(seen, ['data@0:a\n', 'flush@6']);
  await assert.rejects(async () => {
    for await (const p of readPackets(Readable.from([Buffer.from('0009ab')]), 'conn')) seen.push(describe(p));
  }, /conn: truncated pkt-line at offset 0: length 9 declared, stream ended after 6 bytes/);
});
