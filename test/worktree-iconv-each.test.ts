// Many inputs of one pointwise code page through one iconv run (src/worktree/iconv.ts, iconvEach)
// must come out as each would alone: the same bytes where a run of its own succeeds, a failure
// where it fails (a byte the code page lacks, a character cut short at the end, which must not
// take the separator after it as its last byte), and the others unharmed by a failing neighbour.
// Also ISO-8859-1, which encoding.ts converts itself, against iconv in both directions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeManyToGit, encodeToWorkTree } from '../src/worktree/encoding.js';
import { iconv, iconvEach } from '../src/worktree/iconv.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

test('iconvEach answers as a run per input would, failures included', () => {
  const cases: [string, Buffer[]][] = [
    ['SHIFT_JIS', [utf8('plain\n'), iconv(utf8('\u65e5\u672c\u8a9e\n'), 'UTF-8', 'SHIFT_JIS')!, Buffer.from([0x93]), Buffer.from([0x93, 0xfa, 0x81]),
      Buffer.from([0x81, 0x20]), Buffer.alloc(0), Buffer.from('\n\n'), Buffer.from([0x5c, 0x7e]), iconv(utf8('\u30c6\u30ad\u30b9\u30c8'), 'UTF-8', 'SHIFT_JIS')!]],
    ['EUC-KR', [iconv(utf8('\ud55c\uad6d\uc5b4'), 'UTF-8', 'EUC-KR')!, Buffer.from([0xa1]), Buffer.from([0xb0, 0xa1, 0x0a]), Buffer.from([0xff, 0xff])]],
    ['GB18030', [iconv(utf8('\u4e2d\u6587 \u{1F600}'), 'UTF-8', 'GB18030')!, Buffer.from([0x81, 0x30, 0x81]), Buffer.from([0x81, 0x30]), utf8('ascii')]],
    ['KOI8-R', [Buffer.from(Array.from({ length: 256 }, (_, b) => b)), utf8('x')]],
    ['ISO-8859-7', [Buffer.from([0xae, 0xd2, 0xff, 0x41]), Buffer.from([0xc1, 0xc2])]],
  ];
  let failures = 0;
  for (const [encoding, pieces] of cases) {
    const alone = pieces.map(p => iconv(p, encoding, 'UTF-8'));
    failures += alone.filter(r => r === null).length;
    assert.deepEqual(iconvEach(pieces, encoding, 'UTF-8'), alone, encoding);
  }
  assert.ok(failures >= 8, `${failures} inputs that fail alone`);
  // Nothing to convert between: every input fails, as alone.
  assert.deepEqual(iconvEach([utf8('a'), utf8('b')], 'NO-SUCH-CODE-PAGE', 'UTF-8'), [null, null]);
});

test('ISO-8859-1 both ways, in process, as iconv converts it', () => {
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
  const [back] = encodeManyToGit([{ path: 'a', data: bytes, encoding: 'ISO-8859-1' }]);
  assert.deepEqual(back!.data, iconv(bytes, 'ISO-8859-1', 'UTF-8'));
  for (const name of ['ISO-8859-1', 'iso8859-1', 'ISO_8859-1', 'latin1', 'LATIN-1']) {
    assert.deepEqual(encodeToWorkTree(back!.data!, name), bytes, name);
  }
  // Past U+00FF, or not UTF-8: iconv refuses, and so does the conversion here.
  for (const bad of [utf8('\u20ac'), Buffer.from([0xc3]), utf8('\ufeffx')]) {
    assert.equal(iconv(bad, 'UTF-8', 'ISO-8859-1'), null);
    assert.equal(encodeToWorkTree(bad, 'ISO-8859-1'), null);
  }
});
