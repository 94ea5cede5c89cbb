// The protocol layer against git itself: parse what git-core's upload-pack and http-backend say,
// write the same bytes they write, parse what git's own client sends, and talk to a live
// `git upload-pack` far enough to receive a pack that `git index-pack` accepts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, gitBuf, makeRepo, rmrf, tmpDir } from './helpers.js';
import { capabilityValues, hasCapability, parseCapabilityList } from '../src/protocol/capabilities.js';
import { NO_DEEPEN } from '../src/protocol/history-lines.js';
import { FLUSH_PKT, PacketReader } from '../src/protocol/pkt-line.js';
import { demuxSideband } from '../src/protocol/sideband.js';
import {
  formatHaves, formatRefAdvertisement, formatUploadRequest, readAck, readHaves, readRefAdvertisement,
  readServiceHeader, readUploadRequest, type AdvertisedRef,
} from '../src/protocol/v0.js';
import {
  formatCommandRequest, formatFetchArgs, formatLsRefsArgs, formatV2CapabilityAdvertisement, parseFetchArgs,
  parseLsRefsArgs, readCommandRequest, readFetchResponse, readLsRefsResponse, readV2CapabilityAdvertisement,
} from '../src/protocol/v2.js';

let repo: string;
let work: string;

before(() => {
  repo = makeRepo(6);
  git(repo, ['tag', '-a', '-m', 'release', 'v1', 'main~1']);
  git(repo, ['tag', 'light', 'main~2']);
  git(repo, ['branch', 'feature', 'main~3']);
  git(repo, ['config', 'uploadpack.allowFilter', 'true']);
  work = tmpDir('tsgit-protocol-');
});

after(() => {
  rmrf(repo);
  rmrf(work);
});

/** What `git show-ref --head -d` lists, as advertised refs with peeled ids folded in. */
function expectedRefs(dir: string): AdvertisedRef[] {
  const refs: AdvertisedRef[] = [];
  for (const line of git(dir, ['show-ref', '--head', '-d']).trim().split('\n')) {
    const [oid, name] = line.split(' ') as [string, string];
    if (name.endsWith('^{}')) refs[refs.length - 1] = { ...refs[refs.length - 1]!, peeled: oid };
    else refs.push({ name, oid });
  }
  return refs;
}

test('v0 advertisement from git upload-pack: parsed, and rewritten byte for byte', async () => {
  const bytes = gitBuf(repo, ['upload-pack', '--advertise-refs', '.']);
  const adv = await readRefAdvertisement(new PacketReader([bytes], 'git upload-pack'));
  assert.deepEqual(adv.refs, expectedRefs(repo));
  assert.equal(adv.refs[0]!.name, 'HEAD');
  assert.ok(adv.refs.some((r) => r.name === 'refs/tags/v1' && r.peeled === git(repo, ['rev-parse', 'main~1']).trim()));
  assert.deepEqual(capabilityValues(adv.capabilities, 'symref'), ['HEAD:refs/heads/main']);
  assert.ok(hasCapability(adv.capabilities, 'side-band-64k') && hasCapability(adv.capabilities, 'filter'));
  assert.ok(formatRefAdvertisement(adv.refs, adv.capabilities).equals(bytes));
});

test('smart HTTP info/refs from git http-backend: service header, refs, byte-identical rewrite', async () => {
  const env = {
    ...GIT_ENV, GIT_PROJECT_ROOT: path.dirname(repo), GIT_HTTP_EXPORT_ALL: '1', REQUEST_METHOD: 'GET',
    PATH_INFO: `/${path.basename(repo)}/info/refs`, QUERY_STRING: 'service=git-upload-pack',
  };
  const out = gitBuf(repo, ['http-backend'], undefined, env);
  const headerEnd = out.indexOf('\r\n\r\n');
  assert.match(out.subarray(0, headerEnd).toString(), /Content-Type: application\/x-git-upload-pack-advertisement/);
  const body = out.subarray(headerEnd + 4);
  const reader = new PacketReader([body], 'info/refs');
  assert.equal(await readServiceHeader(reader, 'git-upload-pack'), true);
  const adv = await readRefAdvertisement(reader);
  assert.deepEqual(adv.refs, expectedRefs(repo));
  assert.ok(formatRefAdvertisement(adv.refs, adv.capabilities, { service: 'git-upload-pack' }).equals(body));
});

test('empty repositories: upload-pack\'s lone flush, receive-pack\'s capabilities^{} line', async () => {
  const empty = path.join(work, 'empty.git');
  git(work, ['init', '-q', '--bare', empty]);
  const up = await readRefAdvertisement(new PacketReader([gitBuf(empty, ['upload-pack', '--advertise-refs', '.'])]));
  assert.deepEqual(up.refs, []);
  const rpBytes = gitBuf(empty, ['receive-pack', '--advertise-refs', '.']);
  const rp = await readRefAdvertisement(new PacketReader([rpBytes]));
  assert.deepEqual(rp.refs, []);
  assert.ok(hasCapability(rp.capabilities, 'report-status'));
  assert.ok(formatRefAdvertisement([], rp.capabilities).equals(rpBytes));
});

test('v2 capability advertisement from git: parsed, and rewritten byte for byte', async () => {
  const bytes = gitBuf(repo, ['upload-pack', '--advertise-refs', '.'], undefined, { ...GIT_ENV, GIT_PROTOCOL: 'version=2' });
  const caps = await readV2CapabilityAdvertisement(new PacketReader([bytes]));
  const names = caps.map((c) => c.name);
  for (const n of ['agent', 'ls-refs', 'fetch', 'server-option', 'object-format', 'object-info']) assert.ok(names.includes(n), n);
  assert.equal(caps.find((c) => c.name === 'fetch')!.value, 'shallow wait-for-done filter');
  assert.ok(formatV2CapabilityAdvertisement(caps).equals(bytes));
});

/** Clones `repo` with git, through a wrapper that records what the client sent to upload-pack. */
function captureClientRequest(args: string[], protocol: 0 | 2, cwd = work): Buffer {
  const log = path.join(work, `request-${Date.now()}-${Math.random()}.bin`);
  const script = path.join(work, 'tee-upload-pack.sh');
  fs.writeFileSync(script, `#!/bin/sh\ntee '${log}' | git-upload-pack "$@"\n`, { mode: 0o755 });
  git(cwd, ['-c', `protocol.version=${protocol}`, ...args.slice(0, 1), '-q', `--upload-pack=${script}`, ...args.slice(1)]);
  return fs.readFileSync(log);
}

test('a real v0 clone request (shallow, filtered) parses into what git asked for', async () => {
  const bytes = captureClientRequest(['clone', '--no-checkout', '--depth=2', '--filter=blob:none', '--no-single-branch', `file://${repo}`, path.join(work, 'c0')], 0);
  const reader = new PacketReader([bytes], 'git fetch-pack');
  const req = await readUploadRequest(reader);
  assert.ok(req);
  const tips = new Set(git(repo, ['rev-parse', 'main', 'feature', 'v1', 'light']).trim().split('\n'));
  assert.deepEqual(new Set(req.wants), tips);
  assert.equal(req.shape.depth, 2);
  assert.deepEqual(req.filter, { kind: 'blob:none' });
  assert.ok(hasCapability(req.capabilities, 'side-band-64k') && hasCapability(req.capabilities, 'filter'));
  assert.match(req.capabilities.find((c) => c.name === 'agent')!.value!, /^git\//);
  assert.deepEqual(await readHaves(reader), { haves: [], done: true });
  assert.equal(await reader.read(), null);
});

test('a real v0 fetch request carries have lines that end in done', async () => {
  const clone = path.join(work, 'c0-full');
  git(work, ['clone', '-q', `file://${repo}`, clone]);
  const oldTip = git(repo, ['rev-parse', 'main']).trim();
  git(repo, ['commit', '-q', '--allow-empty', '-m', 'new on server']);
  try {
    const bytes = captureClientRequest(['fetch', 'origin'], 0, clone);
    const reader = new PacketReader([bytes], 'git fetch-pack');
    const req = await readUploadRequest(reader);
    assert.deepEqual(req!.wants, [git(repo, ['rev-parse', 'main']).trim()]);
    const haves: string[] = [];
    for (let round = await readHaves(reader); ; round = await readHaves(reader)) {
      haves.push(...round.haves);
      if (round.done) break;
    }
    assert.ok(haves.includes(oldTip), 'the client says it has the old tip');
    assert.equal(await reader.read(), null);
  } finally {
    git(repo, ['reset', '-q', '--hard', oldTip]);
  }
});

test('a real v2 clone session: ls-refs then fetch, each parsed with its arguments', async () => {
  const bytes = captureClientRequest(['clone', '--no-checkout', '--depth=1', '--filter=blob:limit=1k', `file://${repo}`, path.join(work, 'c2')], 2);
  const reader = new PacketReader([bytes], 'git fetch-pack');
  const ls = await readCommandRequest(reader);
  assert.equal(ls!.command, 'ls-refs');
  assert.ok(ls!.capabilities.some((c) => c.name === 'agent'));
  const lsArgs = parseLsRefsArgs(ls!.args, 'ls-refs');
  assert.ok(lsArgs.peel && lsArgs.symrefs);
  assert.ok(lsArgs.refPrefixes.includes('HEAD') && lsArgs.refPrefixes.includes('refs/heads/'));
  const fetch = await readCommandRequest(reader);
  assert.equal(fetch!.command, 'fetch');
  const args = parseFetchArgs(fetch!.args, 'fetch');
  assert.ok(args.wants.includes(git(repo, ['rev-parse', 'main']).trim()));
  assert.equal(args.shape.depth, 1);
  assert.deepEqual(args.filter, { kind: 'blob:limit', bytes: 1024 });
  assert.ok(args.done && args.ofsDelta && args.thinPack);
  assert.equal(await readCommandRequest(reader), null, 'the session ends with a flush or EOF');
});

function startUploadPack(version: 0 | 2): { reader: PacketReader; send: (b: Buffer) => void; finish: () => Promise<number> } {
  const child = spawn('git', ['upload-pack', repo], { env: { ...GIT_ENV, GIT_PROTOCOL: `version=${version}` }, stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return {
    reader: new PacketReader(child.stdout, 'git upload-pack'),
    send: (b) => { child.stdin.write(b); },
    finish: async () => { child.stdin.end(); return exited; },
  };
}

/** Indexes a received pack with git and returns the ids it holds. */
function indexPack(pack: Buffer): Set<string> {
  const dst = path.join(work, `dst-${Date.now()}-${Math.random()}.git`);
  git(work, ['init', '-q', '--bare', dst]);
  git(dst, ['index-pack', '--stdin'], pack);
  return new Set(git(dst, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).trim().split('\n'));
}

function objectsOf(args: string[]): Set<string> {
  return new Set(git(repo, ['rev-list', '--objects', ...args]).trim().split('\n').map((l) => l.slice(0, 40)));
}

test('talking v0 to git upload-pack: wants, done, NAK, side-band pack that git indexes', async () => {
  const { reader, send, finish } = startUploadPack(0);
  const adv = await readRefAdvertisement(reader);
  const wants = [...new Set(adv.refs.map((r) => r.oid))];
  send(Buffer.concat([
    formatUploadRequest({ wants, capabilities: parseCapabilityList('multi_ack_detailed side-band-64k ofs-delta agent=tsgit/test', 'test') }),
    formatHaves([], 'done'),
  ]));
  assert.deepEqual(await readAck(reader), { kind: 'nak' });
  const progress: string[] = [];
  const chunks: Buffer[] = [];
  for await (const c of demuxSideband(reader, { onProgress: (t) => progress.push(t) })) chunks.push(c);
  assert.equal(await finish(), 0);
  assert.deepEqual(indexPack(Buffer.concat(chunks)), objectsOf(['--all']));
  assert.match(progress.join(''), /Total \d+/);
});

test('talking v2 to git upload-pack: ls-refs, a negotiation round, then a shallow fetch', async () => {
  const { reader, send, finish } = startUploadPack(2);
  const caps = await readV2CapabilityAdvertisement(reader);
  assert.ok(caps.some((c) => c.name === 'ls-refs'));

  send(formatCommandRequest('ls-refs', [{ name: 'agent', value: 'tsgit/test' }], formatLsRefsArgs({ peel: true, symrefs: true, refPrefixes: ['HEAD', 'refs/'] })));
  const refs = await readLsRefsResponse(reader);
  const expected = expectedRefs(repo);
  assert.deepEqual(refs.map((r) => r.name), expected.map((r) => r.name));
  assert.equal(refs[0]!.symrefTarget, 'refs/heads/main');
  assert.equal(refs.find((r) => r.name === 'refs/tags/v1')!.peeled, expected.find((r) => r.name === 'refs/tags/v1')!.peeled);

  const main = refs.find((r) => r.name === 'refs/heads/main')!.oid!;
  const base = git(repo, ['rev-parse', 'main~2']).trim();
  send(formatCommandRequest('fetch', [], formatFetchArgs({ wants: [main], haves: [base], ofsDelta: true, waitForDone: true })));
  const round = await readFetchResponse(reader);
  assert.deepEqual(round, { acks: [base], nak: false, ready: false, shallows: [], unshallows: [], wantedRefs: [], packfile: false });

  send(formatCommandRequest('fetch', [], formatFetchArgs({ wants: [main], shape: { ...NO_DEEPEN, depth: 1 }, ofsDelta: true, noProgress: true, done: true })));
  const res = await readFetchResponse(reader);
  assert.deepEqual(res.shallows, [main]);
  assert.ok(res.packfile);
  const chunks: Buffer[] = [];
  for await (const c of demuxSideband(reader)) chunks.push(c);
  send(FLUSH_PKT);
  assert.equal(await finish(), 0);
  assert.deepEqual(indexPack(Buffer.concat(chunks)), objectsOf(['--no-walk', main]));
});
