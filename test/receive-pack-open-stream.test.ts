// A push client sends its pack and then waits for the report with the connection still open; the
// pack's end is not the stream's. receive-pack must finish the pack from what has come, whatever
// pieces it came in. Here the last entry arrives cut off (the parser then asks for more than the
// pack has left) and the rest comes after a pause, as tsgit's own push sent it to tsgit
// receive-pack when the pair hung for good. git receive-pack, fed the same way, is the oracle.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, gitBuf, GIT_ENV, pktBytes, rmrf, tmpDir, TSGIT } from './helpers.js';

/** Runs a receive-pack, sends `head` then (after a pause) `tail`, keeps stdin open until the report's flush. */
function pushInPieces(command: string[], gitDir: string, head: Buffer, tail: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, [...command.slice(1), gitDir], { env: GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => { child.kill(); reject(new Error(`${command.join(' ')}: no report within 20 s`)); }, 20000);
    let out = Buffer.alloc(0), advertised = false, sent = false;
    child.stdout.on('data', (d: Buffer) => {
      out = Buffer.concat([out, d]);
      if (!advertised && out.includes('0000')) {
        advertised = true;
        out = out.subarray(out.indexOf('0000') + 4);
        child.stdin.write(head);
        setTimeout(() => { child.stdin.write(tail); sent = true; }, 200);
        return;
      }
      // The report ends with a flush; only then does the client hang up.
      if (sent && out.toString('latin1').endsWith('0000')) {
        clearTimeout(timer);
        child.stdin.end();
        resolve(out.toString('latin1'));
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) {
        clearTimeout(timer);
        reject(new Error(`${command.join(' ')} exited with ${code}`));
      }
    });
  });
}

describe('receive-pack with the connection left open after the pack', () => {
  let root = '', work = '', tip = '';
  let pack: Buffer = Buffer.alloc(0);
  before(() => {
    root = tmpDir('tsgit-open-stream-');
    work = path.join(root, 'work');
    git(root, ['init', '-q', '-b', 'main', work]);
    // Incompressible (a hash chain), so that the last entry, the blob, is long enough to be cut inside.
    const parts: Buffer[] = [];
    for (let h = Buffer.from('seed'), i = 0; i < 256; i++) parts.push(h = crypto.createHash('sha256').update(h).digest());
    fs.writeFileSync(path.join(work, 'random.bin'), Buffer.concat(parts));
    git(work, ['add', 'random.bin']);
    git(work, ['commit', '-q', '-m', 'one']);
    tip = git(work, ['rev-parse', 'main']).trim();
    pack = gitBuf(work, ['pack-objects', '--stdout', '--revs', '-q'], `${tip}\n`);
  });
  after(() => rmrf(root));

  for (const [name, command] of [['git', ['git', 'receive-pack']], ['tsgit', [process.execPath, TSGIT, 'receive-pack']]] as const) {
    test(`${name} receive-pack reports when the last entry comes cut off and the rest after a pause`, async () => {
      const target = path.join(root, `${name}.git`);
      git(root, ['init', '-q', '--bare', target]);
      const commands = Buffer.concat([pktBytes(`${'0'.repeat(40)} ${tip} refs/heads/main\0report-status\n`), Buffer.from('0000')]);
      const cut = pack.length - 120;
      const report = await pushInPieces([...command], target, Buffer.concat([commands, pack.subarray(0, cut)]), pack.subarray(cut));
      assert.match(report, /unpack ok\n/);
      assert.match(report, /ok refs\/heads\/main\n/);
      assert.equal(git(target, ['rev-parse', 'main']).trim(), tip);
      git(target, ['fsck', '--full']);
    });
  }
});
