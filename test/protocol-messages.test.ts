import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorruptError, GitError } from '../src/core/errors.js';
import {
  capabilityValues, commandFeatures, formatCapabilityList, parseCapabilityList, parseV2Capability,
} from '../src/protocol/capabilities.js';
import { formatFilterSpec, parseFilterSpec } from '../src/protocol/filter-spec.js';
import { NO_DEEPEN } from '../src/protocol/history-lines.js';
import { DELIM_PKT, FLUSH_PKT, PacketReader, pktLine } from '../src/protocol/pkt-line.js';
import { DEFAULT_REQUEST_LIMITS } from '../src/protocol/text.js';
import {
  formatAck, formatErr, formatHaves, formatNak, formatRefAdvertisement, formatShallow, formatUnshallow,
  formatUploadRequest, readAck, readHaves, readRefAdvertisement, readServiceHeader, readShallowUpdate,
  readUploadRequest,
} from '../src/protocol/v0.js';
import {
  formatAcknowledgments, formatCommandRequest, formatFetchArgs, formatLsRefsArgs, formatLsRefsLine,
  formatPackfileHeader, formatShallowInfo, formatV2CapabilityAdvertisement, formatWantedRefs, parseFetchArgs,
  parseLsRefsArgs, readCommandRequest, readFetchResponse, readLsRefsResponse, readV2CapabilityAdvertisement,
} from '../src/protocol/v2.js';

const A = 'a'.repeat(40), B = 'b'.repeat(40), C = 'c'.repeat(40), D = 'd'.repeat(40);

function reader(...parts: (Buffer | string)[]): PacketReader {
  return new PacketReader([Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)))], 'request');
}

function corrupt(pattern: RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof CorruptError, `expected CorruptError, got ${e}`);
    assert.match(e.message, pattern);
    return true;
  };
}

test('v0 capability lists round-trip, values and repeats included', () => {
  const text = 'multi_ack thin-pack side-band-64k symref=HEAD:refs/heads/main symref=refs/remotes/o/HEAD:refs/remotes/o/main agent=git/2.39.5';
  const caps = parseCapabilityList(text, 'adv');
  assert.equal(formatCapabilityList(caps), text);
  assert.deepEqual(capabilityValues(caps, 'symref'), ['HEAD:refs/heads/main', 'refs/remotes/o/HEAD:refs/remotes/o/main']);
  assert.throws(() => parseCapabilityList('ok bad!cap', 'adv'), corrupt(/adv: invalid capability "bad!cap"/));
  assert.throws(() => formatCapabilityList([{ name: 'agent', value: 'has space' }]), /invalid capability "agent=has space"/);
  assert.deepEqual(parseV2Capability('fetch=shallow wait-for-done filter', 'adv'), { name: 'fetch', value: 'shallow wait-for-done filter' });
  assert.deepEqual(commandFeatures([{ name: 'fetch', value: 'shallow wait-for-done' }], 'fetch'), ['shallow', 'wait-for-done']);
  assert.equal(commandFeatures([], 'fetch'), null);
  assert.throws(() => parseV2Capability('=x', 'adv'), corrupt(/invalid capability line "=x"/));
});

test('v0 advertisement: writer and reader agree, peeled tags and shallow lines included', async () => {
  const refs = [{ name: 'HEAD', oid: A }, { name: 'refs/heads/main', oid: A }, { name: 'refs/tags/v1', oid: B, peeled: A }];
  const caps = parseCapabilityList('multi_ack side-band-64k symref=HEAD:refs/heads/main', 'test');
  const wire = formatRefAdvertisement(refs, caps, { service: 'git-upload-pack', shallows: [C] });
  assert.equal(wire.toString('latin1'),
    `001e# service=git-upload-pack\n0000` +
    `0066${A} HEAD\0multi_ack side-band-64k symref=HEAD:refs/heads/main\n` +
    `003d${A} refs/heads/main\n003a${B} refs/tags/v1\n003d${A} refs/tags/v1^{}\n0035shallow ${C}\n0000`);
  const r = reader(wire);
  assert.equal(await readServiceHeader(r, 'git-upload-pack'), true);
  const adv = await readRefAdvertisement(r);
  assert.deepEqual(adv, { version: 0, refs, capabilities: caps, shallows: [C] });
  assert.equal(await r.read(), null);
});

test('v0 advertisement of an empty repository: capabilities^{}, or a lone flush from older git', async () => {
  const wire = formatRefAdvertisement([], [{ name: 'ofs-delta' }], { version1: true });
  assert.equal(wire.toString('latin1'), `000eversion 1\n0047${'0'.repeat(40)} capabilities^{}\0ofs-delta\n0000`);
  assert.deepEqual(await readRefAdvertisement(reader(wire)), { version: 1, refs: [], capabilities: [{ name: 'ofs-delta' }], shallows: [] });
  assert.deepEqual(await readRefAdvertisement(reader('0000')), { version: 0, refs: [], capabilities: [], shallows: [] });
});

test('malformed v0 advertisements are refused', async () => {
  const line = (s: string) => pktLine(`${s}\n`);
  await assert.rejects(readRefAdvertisement(reader(line(`${A} refs/tags/v1^{}\0ofs-delta`), FLUSH_PKT)), corrupt(/offset 0: peeled line "refs\/tags\/v1\^\{\}" does not follow its ref/));
  await assert.rejects(readRefAdvertisement(reader(line(`${A} HEAD`), line(`${B} refs/x\0caps`), FLUSH_PKT)), corrupt(/offset 50: capabilities after the first ref/));
  await assert.rejects(readRefAdvertisement(reader(line(`${A.slice(1)}g HEAD`), FLUSH_PKT)), corrupt(/expected a 40-hex object id, got "a+g"/));
  await assert.rejects(readRefAdvertisement(reader(line(`${A} HEAD`))), corrupt(/stream ended while expecting flush ending the ref advertisement/));
  await assert.rejects(readRefAdvertisement(reader(line('ERR access denied'))), (e: unknown) => e instanceof GitError && e.code === 'remote-error' && /access denied/.test(e.message));
  await assert.rejects(readRefAdvertisement(reader(line('version 2'))), /server speaks protocol v2/);
  await assert.rejects(readRefAdvertisement(reader(line(`${A} HEAD`), line(`shallow ${B}`), line(`${C} refs/heads/x`), FLUSH_PKT)), corrupt(/unexpected line in ref advertisement/));
  await assert.rejects(readServiceHeader(reader(line('# service=git-receive-pack'), FLUSH_PKT), 'git-upload-pack'), corrupt(/expected "# service=git-upload-pack"/));
});

test('v0 upload-request: client writer and server reader agree', async () => {
  const req = {
    wants: [A, B, A], capabilities: parseCapabilityList('multi_ack_detailed side-band-64k filter deepen-relative agent=tsgit/0', 't'),
    shallows: [C], shape: { ...NO_DEEPEN, depth: 3 }, filter: parseFilterSpec('blob:limit=1k'),
  };
  const wire = Buffer.concat([formatUploadRequest(req), formatHaves([C, D], 'flush'), formatHaves([A], 'done')]);
  assert.match(wire.toString('latin1'), new RegExp(`^0078want ${A} multi_ack_detailed side-band-64k filter deepen-relative agent=tsgit/0\n0032want ${B}\n`));
  const r = reader(wire);
  const got = await readUploadRequest(r);
  assert.deepEqual(got, { ...req, shape: { ...req.shape, deepenRelative: true }, filter: { kind: 'blob:limit', bytes: 1024 } });
  assert.deepEqual(await readHaves(r), { haves: [C, D], done: false });
  assert.deepEqual(await readHaves(r), { haves: [A], done: true });
  assert.equal(await r.read(), null);
  assert.equal(await readUploadRequest(reader('0000')), null, 'a lone flush wants nothing');
  assert.equal(await readUploadRequest(reader('')), null, 'nor does hanging up');
});

test('malformed or oversized upload-requests are refused with the offending line and offset', async () => {
  const want = (oid: string, rest = '') => pktLine(`want ${oid}${rest}\n`);
  const cases: [Buffer[], RegExp][] = [
    [[Buffer.from('0004')], /request at offset 0: expected want, shallow, deepen or filter line, got an empty pkt-line \(0004\)/],
    [[want(A)], /stream ended while expecting flush ending the want list/],
    [[want(A), Buffer.from('0003')], /invalid pkt-line length "0003" at offset 50/],
    [[want(A.toUpperCase().slice(0, 39) + 'x')], /expected a 40-hex object id, got "A+x"/],
    [[want(A), want(B, ' ofs-delta'), FLUSH_PKT], /offset 50: malformed want line/],
    [[pktLine(`shallow ${A}\n`), FLUSH_PKT], /upload-request without a want line/],
    [[want(A), pktLine('filter blob:none\n'), FLUSH_PKT], /filter line without the filter capability/],
    [[want(A, ' side-band side-band-64k'), FLUSH_PKT], /both side-band and side-band-64k/],
    [[want(A), pktLine('deepen 2\n'), pktLine('deepen-since 1700000000\n'), FLUSH_PKT], /deepen cannot be combined with deepen-since/],
    [[want(A), pktLine('deepen 0\n'), FLUSH_PKT], /invalid deepen depth "0"/],
    [[want(A), pktLine('deepen -1\n'), FLUSH_PKT], /invalid deepen depth "-1"/],
    [[want(A), pktLine(`have ${B}\n`), FLUSH_PKT], /unexpected line in upload-request: "have b+"/],
  ];
  for (const [parts, pattern] of cases) await assert.rejects(readUploadRequest(reader(...parts)), pattern, pattern.source);
  const limits = { ...DEFAULT_REQUEST_LIMITS, maxWants: 2, maxHaves: 1 };
  await assert.rejects(readUploadRequest(reader(want(A), want(B), want(C), FLUSH_PKT), limits), (e: unknown) =>
    e instanceof GitError && e.code === 'limit-exceeded' && /offset 100: more than 2 want lines/.test(e.message));
  await assert.rejects(readHaves(reader(formatHaves([A, B], 'done')), limits), /more than 1 have lines/);
  await assert.rejects(readHaves(reader(pktLine(`want ${A}\n`))), /expected have, done or flush, got "want a+"/);
});

test('ACK, NAK, shallow and ERR lines', async () => {
  assert.equal(formatAck(A, 'common').toString(), `0038ACK ${A} common\n`);
  assert.equal(formatAck(A).toString(), `0031ACK ${A}\n`);
  assert.equal(formatNak().toString(), '0008NAK\n');
  assert.equal(formatErr('no\nway').toString(), '000eERR no way');
  const r = reader(formatAck(A, 'continue'), formatAck(B, 'ready'), formatAck(C), formatNak(), pktLine(`ACK ${A} maybe\n`));
  assert.deepEqual(await readAck(r), { kind: 'ack', oid: A, status: 'continue' });
  assert.deepEqual(await readAck(r), { kind: 'ack', oid: B, status: 'ready' });
  assert.deepEqual(await readAck(r), { kind: 'ack', oid: C, status: null });
  assert.deepEqual(await readAck(r), { kind: 'nak' });
  await assert.rejects(readAck(r), corrupt(/expected ACK or NAK, got "ACK a+ maybe"/));
  await assert.rejects(readAck(reader(formatErr('not our ref'))), /remote error: not our ref/);
  assert.deepEqual(await readShallowUpdate(reader(formatShallow(A), formatUnshallow(B), FLUSH_PKT)), { shallows: [A], unshallows: [B] });
  assert.throws(() => formatAck('A'.repeat(40)), /not a 40-character lower-case hex id/);
});

test('v2 capability advertisement round-trips', async () => {
  const caps = [{ name: 'agent', value: 'tsgit/0.1' }, { name: 'ls-refs', value: 'unborn' }, { name: 'fetch', value: 'shallow wait-for-done filter' }, { name: 'server-option' }];
  const wire = formatV2CapabilityAdvertisement(caps);
  assert.equal(wire.toString(), '000eversion 2\n0014agent=tsgit/0.1\n0013ls-refs=unborn\n0027fetch=shallow wait-for-done filter\n0012server-option\n0000');
  assert.deepEqual(await readV2CapabilityAdvertisement(reader(wire)), caps);
  await assert.rejects(readV2CapabilityAdvertisement(reader(pktLine('version 1\n'))), /expected "version 2", got "version 1"/);
});

test('v2 command requests: writer and reader agree; malformed ones are refused', async () => {
  const lsArgs = formatLsRefsArgs({ peel: true, symrefs: true, unborn: true, refPrefixes: ['HEAD', 'refs/heads/'] });
  const wire = formatCommandRequest('ls-refs', [{ name: 'agent', value: 'x/1' }, { name: 'object-format', value: 'sha1' }], lsArgs);
  const r = reader(wire, FLUSH_PKT);
  const req = await readCommandRequest(r);
  assert.deepEqual(req, { command: 'ls-refs', capabilities: [{ name: 'agent', value: 'x/1' }, { name: 'object-format', value: 'sha1' }], args: lsArgs });
  assert.deepEqual(parseLsRefsArgs(req!.args, 'ls-refs'), { peel: true, symrefs: true, unborn: true, refPrefixes: ['HEAD', 'refs/heads/'] });
  assert.equal(await readCommandRequest(r), null, 'a lone flush ends the session');
  assert.deepEqual(await readCommandRequest(reader(pktLine('agent=y'), pktLine('command=fetch'), FLUSH_PKT)),
    { command: 'fetch', capabilities: [{ name: 'agent', value: 'y' }], args: [] }, 'command may follow capabilities; delim is optional without arguments');

  const cmd = pktLine('command=ls-refs\n');
  const cases: [Buffer[], RegExp][] = [
    [[Buffer.from('0004')], /offset 0: expected command or capability line, got an empty pkt-line/],
    [[cmd, DELIM_PKT, Buffer.from('0004'), FLUSH_PKT], /offset 24: expected argument line, got an empty pkt-line/],
    [[pktLine('agent=x\n'), FLUSH_PKT], /request without a command= line/],
    [[cmd, pktLine('command=fetch\n'), FLUSH_PKT], /second command in one request/],
    [[pktLine('command=ls refs\n'), FLUSH_PKT], /invalid (capability|command) line/],
    [[cmd, DELIM_PKT, pktLine('peel\n')], /stream ended while expecting argument or flush/],
    [[cmd, DELIM_PKT, DELIM_PKT, FLUSH_PKT], /expected argument line, got a delim packet/],
    [[cmd, Buffer.from('zzzz')], /invalid pkt-line length "zzzz" at offset 20/],
  ];
  for (const [parts, pattern] of cases) await assert.rejects(readCommandRequest(reader(...parts)), pattern, pattern.source);
  const tight = { maxWants: 1, maxHaves: 1, maxShallows: 1, maxOther: 1 };
  await assert.rejects(readCommandRequest(reader(cmd, DELIM_PKT, ...Array.from({ length: 5 }, () => pktLine('peel\n')), FLUSH_PKT), tight), /more than 4 argument lines/);
  assert.throws(() => parseLsRefsArgs(['peel', 'ref-prefix'], 'ls-refs request'), corrupt(/ls-refs request: unexpected ls-refs argument "ref-prefix"/));
  assert.deepEqual(parseLsRefsArgs(['ref-prefix a', 'ref-prefix b', 'ref-prefix c'], 'x', tight).refPrefixes, [], 'too many prefixes means all refs, as in git');
});

test('v2 fetch arguments: writer and reader agree; unknown or oversized ones are refused', () => {
  const req = {
    wants: [A, B], wantRefs: ['refs/heads/main'], haves: [C], done: true, thinPack: true, noProgress: true, includeTag: true,
    ofsDelta: true, shallows: [D], shape: { depth: 0, deepenRelative: false, deepenSince: 1700000000, deepenNot: ['refs/tags/v1'] },
    filter: parseFilterSpec('tree:0'), waitForDone: true, sidebandAll: false,
  };
  const args = formatFetchArgs(req);
  assert.deepEqual(args, ['thin-pack', 'no-progress', 'include-tag', 'ofs-delta', `shallow ${D}`, 'deepen-since 1700000000',
    'deepen-not refs/tags/v1', 'filter tree:0', `want ${A}`, `want ${B}`, 'want-ref refs/heads/main', 'wait-for-done', `have ${C}`, 'done']);
  assert.deepEqual(parseFetchArgs(args, 'fetch'), req);
  assert.equal(parseFetchArgs([...args, 'packfile-uris https'], 'fetch').wants.length, 2, 'packfile-uris is ignored');
  // A time of 0 is a time, written and read as git's upload-pack reads it (only -1 is refused there).
  const epoch = { ...req, shallows: [], filter: null, shape: { ...NO_DEEPEN, deepenSince: 0 } };
  assert.ok(formatFetchArgs(epoch).includes('deepen-since 0'));
  assert.deepEqual(parseFetchArgs(formatFetchArgs(epoch), 'fetch'), epoch);
  assert.throws(() => parseFetchArgs(['want-ref refs/a', 'want-ref refs/a'], 'f'), /want-ref "refs\/a" sent twice/);
  assert.throws(() => parseFetchArgs(['deepen 1', 'deepen-not refs/x'], 'f'), /deepen cannot be combined/);
  assert.throws(() => parseFetchArgs(['frobnicate'], 'f'), corrupt(/f: unexpected fetch argument "frobnicate"/));
  assert.throws(() => parseFetchArgs(['filter bogus:1'], 'f'), /invalid filter-spec "bogus:1": unknown filter/);
  assert.throws(() => parseFetchArgs([`have ${A}`, `have ${B}`], 'f', { ...DEFAULT_REQUEST_LIMITS, maxHaves: 1 }), /more than 1 have lines/);
  assert.throws(() => parseFetchArgs([`want ${A}`, 'want-ref refs/x'], 'f', { ...DEFAULT_REQUEST_LIMITS, maxWants: 1 }), /more than 1 want lines/);
});

test('v2 ls-refs lines round-trip, unborn HEAD included', async () => {
  const refs = [
    { oid: null, name: 'HEAD', symrefTarget: 'refs/heads/main' },
    { oid: A, name: 'refs/tags/v1', peeled: B },
    { oid: C, name: 'refs/heads/x' },
  ];
  const wire = Buffer.concat([...refs.map(formatLsRefsLine), FLUSH_PKT]);
  assert.equal(formatLsRefsLine(refs[0]!).toString(), '002eunborn HEAD symref-target:refs/heads/main\n');
  assert.deepEqual(await readLsRefsResponse(reader(wire)), refs);
  await assert.rejects(readLsRefsResponse(reader(pktLine(`${A} HEAD color:blue\n`), FLUSH_PKT)), /unknown ls-refs attribute "color:blue"/);
  await assert.rejects(readLsRefsResponse(reader(pktLine('unborn HEAD\n'), FLUSH_PKT)), /unborn ref without symref-target/);
});

test('v2 fetch responses: sections in order, negotiation rounds and packfile', async () => {
  const round = reader(formatAcknowledgments([A, B], false), FLUSH_PKT);
  assert.deepEqual(await readFetchResponse(round), { acks: [A, B], nak: false, ready: false, shallows: [], unshallows: [], wantedRefs: [], packfile: false });
  const full = reader(formatAcknowledgments([], true), DELIM_PKT, formatShallowInfo([A], [B]), DELIM_PKT,
    formatWantedRefs([{ oid: C, name: 'refs/heads/main' }]), DELIM_PKT, formatPackfileHeader(), pktLine('\x01PACK'), FLUSH_PKT);
  assert.deepEqual(await readFetchResponse(full), {
    acks: [], nak: true, ready: true, shallows: [A], unshallows: [B], wantedRefs: [{ oid: C, name: 'refs/heads/main' }], packfile: true,
  });
  const next = await full.read();
  assert.ok(next?.type === 'data' && next.payload.toString() === '\x01PACK', 'pack data is left for the demuxer');

  await assert.rejects(readFetchResponse(reader(formatShallowInfo([A], []), DELIM_PKT, formatAcknowledgments([], false), FLUSH_PKT)), /unexpected section "acknowledgments"/);
  await assert.rejects(readFetchResponse(reader(formatAcknowledgments([A], false), DELIM_PKT, formatPackfileHeader())), /unexpected delim packet after the acknowledgments section/);
  await assert.rejects(readFetchResponse(reader(pktLine('acknowledgments\n'), pktLine('NAK\n'), pktLine(`ACK ${A}\n`), FLUSH_PKT)), /both ACK and NAK/);
  await assert.rejects(readFetchResponse(reader(formatShallowInfo([A], []), FLUSH_PKT)), /ended after shallow-info without a packfile/);
  await assert.rejects(readFetchResponse(reader(pktLine('acknowledgments\n'), pktLine('ready?\n'))), /unexpected line in acknowledgments section: "ready\?"/);
});

test('filter specs parse, expand sizes, and name the spec they refuse', () => {
  assert.deepEqual(parseFilterSpec('blob:none'), { kind: 'blob:none' });
  assert.deepEqual(parseFilterSpec('blob:limit=0'), { kind: 'blob:limit', bytes: 0 });
  assert.deepEqual(parseFilterSpec('blob:limit=2M'), { kind: 'blob:limit', bytes: 2 * 1024 * 1024 });
  assert.deepEqual(parseFilterSpec('blob:limit=1g'), { kind: 'blob:limit', bytes: 1024 ** 3 });
  assert.deepEqual(parseFilterSpec('tree:3'), { kind: 'tree', depth: 3 });
  assert.deepEqual(parseFilterSpec('object:type=tag'), { kind: 'object:type', type: 'tag' });
  const combined = parseFilterSpec('combine:blob:limit=1k+tree:2+combine%3Ablob:none%2Bobject:type=blob');
  assert.deepEqual(combined, { kind: 'combine', filters: [
    { kind: 'blob:limit', bytes: 1024 }, { kind: 'tree', depth: 2 },
    { kind: 'combine', filters: [{ kind: 'blob:none' }, { kind: 'object:type', type: 'blob' }] },
  ] });
  assert.equal(formatFilterSpec(combined), 'combine:blob:limit=1024+tree:2+combine:blob:none%2Bobject:type=blob');
  assert.deepEqual(parseFilterSpec(formatFilterSpec(combined)), combined);
  const refused: [string, RegExp][] = [
    ['blob:limit=', /invalid filter-spec "blob:limit=": expected 'blob:limit=<n>\[kmg\]'/],
    ['blob:limit=-1', /"blob:limit=-1"/], ['blob:limit=1t', /"blob:limit=1t"/], ['blob:limit=99999999999999999g', /"blob:limit=99999999999999999g"/],
    ['tree:', /expected 'tree:<depth>'/], ['tree:x', /"tree:x"/],
    ['object:type=blobs', /"blobs" is not an object type/],
    ['combine:', /expected something after combine:/], ['combine:blob:none+', /invalid filter-spec "": unknown filter/],
    ['combine:blob:none+tree:1~', /must escape "~" in a sub-filter-spec/],
    ['blob:nothing', /invalid filter-spec "blob:nothing": unknown filter/], ['', /invalid filter-spec "": unknown filter/],
  ];
  for (const [spec, pattern] of refused) {
    assert.throws(() => parseFilterSpec(spec), (e: unknown) => e instanceof GitError && e.code === 'invalid-filter' && pattern.test(e.message), spec);
  }
  assert.throws(() => parseFilterSpec('sparse:oid=main:.sparse'), (e: unknown) => e instanceof GitError && e.code === 'unsupported' && /sparse:oid=main:.sparse/.test(e.message));
});
