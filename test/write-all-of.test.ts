// writeAllOf: several buffers written in order with writev, in batches of at most IOV_MAX, to a
// file and to a pipe whose reader takes less than is written at once (partial writes).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeAllOf } from '../src/core/write-exactly.js';
import { rmrf, tmpDir } from './helpers.js';

function pieces(): Buffer[] {
  // 3,000 pieces (three writev batches), of every size from 0 to 299 bytes, and one of 200 KiB.
  const out: Buffer[] = [];
  for (let i = 0; i < 3000; i++) out.push(Buffer.alloc(i % 300, i & 0xff));
  out.splice(1500, 0, Buffer.alloc(200 * 1024, 0x5a));
  return out;
}

test('writeAllOf writes every piece in order to a file', () => {
  const dir = tmpDir('tsgit-writev-');
  try {
    const file = path.join(dir, 'out');
    const fd = fs.openSync(file, 'w');
    const bufs = pieces();
    writeAllOf(fd, bufs);
    fs.closeSync(fd);
    assert.ok(fs.readFileSync(file).equals(Buffer.concat(bufs)));
  } finally {
    rmrf(dir);
  }
});

test('writeAllOf goes on after partial writes to a pipe', async () => {
  // The child reads its stdin slowly in small pieces and echoes the total it got with its hash.
  const child = spawn(process.execPath, ['-e', `
    const h = require('crypto').createHash('sha1'); let n = 0;
    process.stdin.on('data', (d) => { h.update(d); n += d.length; });
    process.stdin.on('end', () => process.stdout.write(n + ' ' + h.digest('hex')));
  `], { stdio: ['pipe', 'pipe', 'inherit'] });
  const fd = (child.stdin as unknown as { _handle: { fd: number } })._handle.fd;
  const bufs = pieces();
  const expected = Buffer.concat(bufs);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const done = new Promise((resolve) => child.on('close', resolve));
  writeAllOf(fd, bufs);
  child.stdin.end();
  await done;
  const { createHash } = await import('node:crypto');
  assert.equal(out, `${expected.length} ${createHash('sha1').update(expected).digest('hex')}`);
});
