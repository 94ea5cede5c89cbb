'use strict';
// A long-running filter process (gitattributes "Long Running Filter Process") for the tests, in
// plain JavaScript run by node: smudge prefixes "smudged\n", clean takes it off again; paths
// naming "delay" are delayed when git allows it (listed two at a time, sorted; "never" never),
// "error" and "abort" get that status, "crash" makes it exit in the middle of a request. Every
// request is logged to $FILTER_LOG, so that what tsgit asks can be compared with what git asks.
// $FILTER_CAPS limits the capabilities it takes; $FILTER_EXTRA_CAP adds one git does not know.
// $FILTER_GROW=N makes a smudged file N copies of the blob (answers far larger than requests).
const fs = require('fs');
const LOG = process.env.FILTER_LOG;
const log = (s) => { if (LOG) fs.appendFileSync(LOG, s + '\n'); };
const nap = new Int32Array(new SharedArrayBuffer(4));
function readSome(buf, off, len) {
  for (;;) {
    try { return fs.readSync(0, buf, off, len, null); } catch (e) { if (e.code !== 'EAGAIN') throw e; Atomics.wait(nap, 0, 0, 1); }
  }
}
function readExact(n, eofOk) {
  const b = Buffer.alloc(n);
  for (let o = 0; o < n;) {
    const r = readSome(b, o, n - o);
    if (r === 0) { if (eofOk && o === 0) return null; throw new Error('unexpected end of input'); }
    o += r;
  }
  return b;
}
function readPkt() {
  const h = readExact(4, true);
  if (!h) process.exit(0);
  const len = parseInt(h.toString('latin1'), 16);
  return len === 0 ? null : readExact(len - 4, false);
}
function writeAll(b) {
  for (let o = 0; o < b.length;) {
    try { o += fs.writeSync(1, b, o); } catch (e) { if (e.code !== 'EAGAIN') throw e; Atomics.wait(nap, 0, 0, 1); }
  }
}
const pkt = (s) => { const b = Buffer.from(s, 'latin1'); return Buffer.concat([Buffer.from((b.length + 4).toString(16).padStart(4, '0')), b]); };
const FLUSH = Buffer.from('0000');
function readList() {
  const out = [];
  for (let p = readPkt(); p; p = readPkt()) out.push(p.toString('latin1').replace(/\n$/, ''));
  return out;
}
function readContent() {
  const parts = [];
  for (let p = readPkt(); p; p = readPkt()) parts.push(p);
  return Buffer.concat(parts);
}
const status = (s) => writeAll(Buffer.concat([pkt(`status=${s}\n`), FLUSH]));
const hello = readList();
writeAll(Buffer.concat([pkt('git-filter-server\n'), pkt('version=2\n'), FLUSH]));
const caps = readList();
const mine = (process.env.FILTER_CAPS || 'clean,smudge,delay').split(',');
const extra = process.env.FILTER_EXTRA_CAP ? [pkt(`capability=${process.env.FILTER_EXTRA_CAP}\n`)] : [];
writeAll(Buffer.concat([...mine.filter(c => caps.includes(`capability=${c}`)).map(c => pkt(`capability=${c}\n`)), ...extra, FLUSH]));
log(`start ${hello.join(' ')} | ${caps.join(' ')} | cwd=${process.cwd() === process.env.FILTER_CWD ? 'worktree' : process.cwd()}`);
const delayed = new Map();
const SMUDGED = Buffer.from('smudged\n');
const GROW = Number(process.env.FILTER_GROW || 1);
for (;;) {
  const head = readList();
  const kv = {};
  for (const l of head) kv[l.slice(0, l.indexOf('='))] = l.slice(l.indexOf('=') + 1);
  if (kv.command === 'list_available_blobs') {
    const ready = [...delayed.keys()].filter(p => !p.includes('never')).sort().slice(0, 2);
    log(`list_available_blobs -> ${ready.join(' ')}`);
    writeAll(Buffer.concat([...ready.map(p => pkt(`pathname=${p}\n`)), FLUSH]));
    status('success');
    continue;
  }
  const content = readContent();
  const p = kv.pathname;
  log(`${kv.command} ${p} ${content.length}${kv['can-delay'] ? ' can-delay' : ''}${kv.ref ? ` ref=${kv.ref}` : ''}${kv.treeish ? ' treeish' : ''}${kv.blob ? ' blob' : ''}`);
  if (p.includes('crash')) process.exit(3);
  if (p.includes('error')) { status('error'); continue; }
  if (p.includes('abort')) { status('abort'); continue; }
  if (kv.command === 'smudge' && p.includes('delay') && kv['can-delay'] === '1') { delayed.set(p, content); status('delayed'); continue; }
  let input = content;
  if (kv.command === 'smudge' && delayed.has(p)) { input = delayed.get(p); delayed.delete(p); }
  let out;
  if (kv.command === 'smudge') out = Buffer.concat([SMUDGED, ...Array(GROW).fill(input)]);
  else out = input.subarray(0, SMUDGED.length).equals(SMUDGED) ? input.subarray(SMUDGED.length, SMUDGED.length + (input.length - SMUDGED.length) / GROW) : input;
  writeAll(Buffer.concat([pkt('status=success\n'), FLUSH]));
  const parts = [];
  for (let o = 0; o < out.length; o += 65516) parts.push(Buffer.concat([Buffer.from((Math.min(65516, out.length - o) + 4).toString(16).padStart(4, '0')), out.subarray(o, o + 65516)]));
  writeAll(Buffer.concat([...parts, FLUSH, FLUSH]));
}
