// The serve-load benchmark's driver (bench/serve-load-driver.ts) stops the server it drives
// however its run ends, since the benchmark measures that server until it stops: when clients get
// no answer at all (they fail at their deadline), and when the driver itself fails (its result
// cannot be written). The server here is a stand-in that listens and answers nothing, or hangs up.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, rmrf, tmpDir } from './helpers.js';

const DRIVER = path.join(ROOT, 'dist', 'bench', 'serve-load-driver.js');
let dir: string;
/** Every process started here, killed at the end if a failing driver left it running. */
const started: ChildProcess[] = [];

before(() => {
  dir = tmpDir('tsgit-load-driver-');
  fs.writeFileSync(path.join(dir, 'request'), '0000');
});

after(() => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  rmrf(dir);
});

/** A server on a free port that keeps connections open saying nothing, or closes them at once. */
async function standIn(mode: 'silent' | 'hang-up'): Promise<{ child: ChildProcess; port: number; exited: Promise<NodeJS.Signals | null> }> {
  const script = `const s = require('node:net').createServer(c => { if (${mode === 'hang-up'}) c.destroy(); });
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  const exited = new Promise<NodeJS.Signals | null>(resolve => child.on('exit', (_code, signal) => resolve(signal)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', () => reject(new Error('the stand-in server exited')));
  });
  return { child, port, exited };
}

function runDriver(config: object): Promise<number | null> {
  const driver = spawn(process.execPath, [DRIVER, JSON.stringify(config)], { stdio: 'ignore' });
  started.push(driver);
  return new Promise(resolve => driver.on('exit', code => resolve(code)));
}

/** The stand-in's end: SIGTERM from the driver, or (failing the test) null if it is still up a while later. */
async function stoppedBy(server: { child: ChildProcess; exited: Promise<NodeJS.Signals | null> }): Promise<NodeJS.Signals | null> {
  const late = new Promise<null>(resolve => setTimeout(() => resolve(null), 5000).unref());
  return Promise.race([server.exited, late]);
}

test('clients with no answer fail at their deadline, and the server is stopped', { timeout: 90_000 }, async () => {
  for (const transport of ['git', 'http'] as const) {
    const server = await standIn('silent');
    const result = path.join(dir, `silent-${transport}.json`);
    const code = await runDriver({
      transport, port: server.port, repo: 'repo.git', clients: 3, request: path.join(dir, 'request'), result, clientTimeoutMs: 1000,
    });
    assert.equal(await stoppedBy(server), 'SIGTERM', `${transport}: the server was stopped`);
    assert.equal(code, 0);
    const r = JSON.parse(fs.readFileSync(result, 'utf8')) as { clients: { ok: boolean; error: string }[] };
    assert.equal(r.clients.length, 3);
    for (const c of r.clients) assert.deepEqual([c.ok, c.error], [false, 'no whole answer within 1 s'], transport);
  }
});

test('a driver that fails (its result cannot be written) still stops the server', { timeout: 90_000 }, async () => {
  const server = await standIn('hang-up');
  const code = await runDriver({
    transport: 'git', port: server.port, repo: 'repo.git', clients: 2, request: path.join(dir, 'request'),
    result: path.join(dir, 'no-such-directory', 'result.json'),
  });
  assert.equal(await stoppedBy(server), 'SIGTERM');
  assert.equal(code, 1);
});
