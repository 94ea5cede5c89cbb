// Several tsgit command lines run one after another in one Node process, each through the CLI
// bundle bin/tsgit loads for it (main(argv): the same dispatcher, options and printers), with its
// exit status, stdout and stderr kept apart. For the oracle tests that compare hundreds of outputs
// with git's: a process per command line costs 0.1-0.3 s of start-up, and the comparison is about
// what the command prints, not about starting Node. bin/tsgit itself (the bundle it picks, its
// error printer) is covered by the tests that spawn it, and each file using this checks a few of
// its command lines against a spawned bin/tsgit too (sameAsSpawned).
//
// Run as a script with BATCH_FLAG, this file is the child: it reads the command lines from argv,
// runs them in turn, and after each writes a marker (a random nonce and the exit status) to its
// stdout and to its stderr. node --test also loads it as a test file: without the flag, it does
// nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GIT_ENV, ROOT, tmpDir, TSGIT } from './helpers.js';

export interface BatchCommand { cwd: string; args: string[] }
export interface BatchResult { status: number; stdout: Buffer; stderr: Buffer }

const BATCH_FLAG = '--tsgit-cli-batch';
const SELF = fileURLToPath(import.meta.url);

/**
 * Runs `commands` in one child process with environment `env` (as tsgit(cwd, args, undefined, env)
 * would each in its own); returns each one's status and output. A child that dies part-way (a
 * crash, process.exit) throws, naming the command line it was running.
 */
export function tsgitBatch(commands: BatchCommand[], env: NodeJS.ProcessEnv = GIT_ENV, timeout = 300_000): BatchResult[] {
  const nonce = crypto.randomBytes(16).toString('hex');
  const list = path.join(tmpDir('tsgit-cli-batch-'), 'commands.json');
  fs.writeFileSync(list, JSON.stringify(commands));
  try {
    const r = spawnSync(process.execPath, [SELF, BATCH_FLAG, nonce, list], { env, maxBuffer: 1 << 30, timeout });
    const outs = split(r.stdout, Buffer.from(`\0${nonce}:`), true);
    const errs = split(r.stderr, Buffer.from(`\0${nonce}\0`), false);
    const done = Math.min(outs.length, errs.length);
    if (done < commands.length || r.status !== 0) {
      const at = commands[done];
      assert.fail(`the batch child stopped (status ${r.status}, signal ${r.signal}) ${at ? `at tsgit ${at.args.join(' ')} in ${at.cwd}` : 'after its last command'}:\n`
        + r.stderr.subarray(-4000).toString());
    }
    return outs.map((o, i) => ({ status: o.status, stdout: o.data, stderr: errs[i]!.data }));
  } finally {
    fs.rmSync(path.dirname(list), { recursive: true, force: true });
  }
}

/** The pieces of `buf` ended by `marker` (followed by "<status>\0" when `withStatus`). */
function split(buf: Buffer, marker: Buffer, withStatus: boolean): { data: Buffer; status: number }[] {
  const pieces: { data: Buffer; status: number }[] = [];
  let from = 0;
  for (;;) {
    const at = buf.indexOf(marker, from);
    if (at < 0) return pieces;
    let next = at + marker.length, status = 0;
    if (withStatus) {
      const end = buf.indexOf(0, next);
      status = Number(buf.toString('latin1', next, end));
      next = end + 1;
    }
    pieces.push({ data: buf.subarray(from, at), status });
    from = next;
  }
}

/**
 * Asserts that the spawned CLI (bin/tsgit, a process per command line) gives exactly what the
 * batch gave for the same command lines: the batch stands for the CLI only where they agree.
 */
export function sameAsSpawned(commands: BatchCommand[], results: BatchResult[], env: NodeJS.ProcessEnv = GIT_ENV): void {
  assert.ok(commands.length > 0);
  commands.forEach((c, i) => {
    const t = spawnSync(process.execPath, [TSGIT, ...c.args], { cwd: c.cwd, env, maxBuffer: 1 << 30 });
    const b = results[i]!;
    const what = `tsgit ${c.args.join(' ')} in ${c.cwd}`;
    assert.equal(b.status, t.status, `${what}: exit ${b.status} in the batch, ${t.status} spawned\n${t.stderr}`);
    assert.ok(b.stdout.equals(t.stdout), `${what}: stdout differs between the batch and the spawned CLI`);
    assert.equal(b.stderr.toString('latin1'), t.stderr.toString('latin1'), `${what}: stderr differs between the batch and the spawned CLI`);
  });
}

// ---- the child ----

/** bin/tsgit's choice of bundle: the command's own when it has one, else the whole CLI. */
function entryFor(args: string[]): string {
  let name: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-C' || a === '-c' || a === '--git-dir') i++;
    else if (a.startsWith('--git-dir=')) continue;
    else { name = a.startsWith('-') ? null : a; break; }
  }
  if (name && /^[a-z][a-z-]*$/.test(name)) {
    const own = path.join(ROOT, 'dist', 'src', `tsgit-cmd-${name}.js`);
    if (fs.existsSync(own)) return pathToFileURL(own).href;
  }
  return pathToFileURL(path.join(ROOT, 'dist', 'src', 'tsgit-main.js')).href;
}

function writeFully(fd: number, data: Buffer): void {
  for (let done = 0; done < data.length;) {
    try {
      done += fs.writeSync(fd, data, done, data.length - done);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

async function child(nonce: string, listFile: string): Promise<void> {
  // As bin/tsgit: Node's warnings are not the command's output.
  process.removeAllListeners('warning');
  process.env.NODE_NO_WARNINGS = '1';
  const commands = JSON.parse(fs.readFileSync(listFile, 'utf8')) as BatchCommand[];
  const env = { ...process.env };
  for (const c of commands) {
    process.chdir(c.cwd);
    const { main } = await import(entryFor(c.args)) as { main(argv: string[]): Promise<number> };
    const status = await main(c.args);
    // Each command line starts from the environment the batch was given (-c sets a variable).
    for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
    Object.assign(process.env, env);
    writeFully(1, Buffer.from(`\0${nonce}:${status}\0`));
    writeFully(2, Buffer.from(`\0${nonce}\0`));
  }
}

if (process.argv[2] === BATCH_FLAG) await child(process.argv[3]!, process.argv[4]!);
