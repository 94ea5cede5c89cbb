// tsgit command lines run in one Node process, each through the CLI bundle bin/tsgit loads for it
// (main(argv): the same dispatcher, options, printers and exit statuses), with its exit status,
// stdout and stderr kept apart: tsgitBatch runs a list of them, TsgitSession one at a time as a
// test asks (for tests that look at the disk between two). A process per command line costs 0.1 to
// 0.3 s of start-up on a busy machine, and the tests that use these are about what a command does
// and prints, not about starting Node. bin/tsgit itself (the bundle it picks, its error printer)
// is covered by the tests that spawn it, and each file using these also runs some of its command
// lines with a spawned bin/tsgit and checks that it prints the same (sameAsSpawned, or its own).
//
// Run as a script with BATCH_FLAG or SESSION_FLAG, this file is the child: it runs the command
// lines in turn, each as its own process would run to its end (runOne), and after each writes a
// marker (a random nonce and the exit status) to its stdout and to its stderr. node --test also
// loads it as a test file: without a flag, it does nothing.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { writeExactly } from '../src/core/write-exactly.js';
import { GIT_ENV, ROOT, tmpDir, TSGIT } from './helpers.js';

export interface BatchCommand {
  cwd: string;
  args: string[];
  /** This command line's own environment, instead of the batch's. */
  env?: NodeJS.ProcessEnv;
}
export interface BatchResult { status: number; stdout: Buffer; stderr: Buffer }

const BATCH_FLAG = '--tsgit-cli-batch';
const SESSION_FLAG = '--tsgit-cli-session';
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

/**
 * Runs `commands` with tsgit (one batch) and with git (each spawned, in the same directory and
 * environment) and asserts that they agree: exit status, stdout, and stderr (always, or only
 * where git fails); git's usage text (status 129) by its first line, since the rest names git and
 * its options. With `spawnSome`, the first, middle and last command lines also run spawned.
 */
export function assertSameAsGit(commands: BatchCommand[], options: { stderr: 'always' | 'on-failure'; spawnSome?: boolean; env?: NodeJS.ProcessEnv }): void {
  const env = options.env ?? GIT_ENV;
  const ours = tsgitBatch(commands, env);
  commands.forEach((c, i) => {
    const theirs = spawnSync('git', c.args, { cwd: c.cwd, env: c.env ?? env });
    const r = ours[i]!;
    const what = `${c.args.join(' ')} in ${c.cwd}`;
    assert.equal(r.status, theirs.status, `${what}: status (${r.stderr})`);
    assert.equal(r.stdout.toString('latin1'), theirs.stdout.toString('latin1'), what);
    if (theirs.status === 129) {
      assert.equal(r.stderr.toString().split('\n')[0], theirs.stderr.toString().split('\n')[0], `${what}: stderr`);
    } else if (options.stderr === 'always' || theirs.status !== 0) {
      assert.equal(r.stderr.toString(), theirs.stderr.toString(), `${what}: stderr`);
    }
  });
  if (options.spawnSome) {
    const some = [...new Set([0, Math.floor(commands.length / 2), commands.length - 1])];
    sameAsSpawned(some.map((i) => commands[i]!), some.map((i) => ours[i]!), env);
  }
}

/**
 * One child process that runs tsgit command lines as they are asked for, one at a time, through
 * the CLI bundle as tsgitBatch does: for tests that look at the disk between two commands. Each
 * command line gets the environment it is run with and the working directory it names; stop()
 * ends the child.
 */
export class TsgitSession {
  private out = Buffer.alloc(0);
  private err = Buffer.alloc(0);
  private readonly nonce = crypto.randomBytes(16).toString('hex');
  private readonly child: ChildProcess;
  private waiting: { what: string; resolve(r: BatchResult): void; reject(e: Error): void } | null = null;
  private exited: Promise<void>;
  private gone: string | null = null;

  constructor() {
    this.child = spawn(process.execPath, [SELF, SESSION_FLAG, this.nonce], { env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    this.child.stdout!.on('data', (c: Buffer) => { this.out = Buffer.concat([this.out, c]); this.settle(); });
    this.child.stderr!.on('data', (c: Buffer) => { this.err = Buffer.concat([this.err, c]); this.settle(); });
    // Its end: the process gone and its output read ('close' is not emitted once this side has
    // disconnected the channel).
    const ended = (emitter: NodeJS.EventEmitter, event: string) => new Promise<unknown[]>((resolve) => emitter.once(event, (...a) => resolve(a)));
    this.exited = Promise.all([ended(this.child, 'exit'), ended(this.child.stdout!, 'close'), ended(this.child.stderr!, 'close')]).then(([[code, signal]]) => {
      this.gone = `the session child exited (status ${code}, signal ${signal})`;
      this.waiting?.reject(new Error(`${this.gone} running ${this.waiting.what}:\n${this.err.subarray(-4000)}`));
      this.waiting = null;
    });
  }

  /** Runs `tsgit <args>` in `cwd` with environment `env`, as tsgit(cwd, args, undefined, env) would. */
  run(cwd: string, args: string[], env: NodeJS.ProcessEnv = GIT_ENV): Promise<BatchResult> {
    assert.equal(this.waiting, null, 'one command line at a time');
    if (this.gone) return Promise.reject(new Error(this.gone));
    return new Promise((resolve, reject) => {
      this.waiting = { what: `tsgit ${args.join(' ')} in ${cwd}`, resolve, reject };
      this.child.send({ cwd, args, env });
    });
  }

  private settle(): void {
    if (!this.waiting) return;
    const outMark = Buffer.from(`\0${this.nonce}:`), errMark = Buffer.from(`\0${this.nonce}\0`);
    const o = this.out.indexOf(outMark), e = this.err.indexOf(errMark);
    if (o < 0 || e < 0) return;
    const end = this.out.indexOf(0, o + outMark.length);
    if (end < 0) return;
    const result = { status: Number(this.out.toString('latin1', o + outMark.length, end)), stdout: this.out.subarray(0, o), stderr: this.err.subarray(0, e) };
    this.out = this.out.subarray(end + 1);
    this.err = this.err.subarray(e + errMark.length);
    const w = this.waiting;
    this.waiting = null;
    w.resolve(result);
  }

  async stop(): Promise<void> {
    if (!this.gone) this.child.disconnect();
    await this.exited;
  }
}

// ---- the child ----

/**
 * What a process that ends keeps of a command's work, for the command lines of one child: worker
 * threads started by a command (whether they hold the process open: Worker has no way to ask),
 * and the 'exit' and signal listeners it added.
 */
const workers = new Set<Worker>();
const unrefd = new WeakSet<Worker>();
const PROCESS_EVENTS = ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGPIPE'] as const;

function watchWorkers(): void {
  const { ref, unref } = Worker.prototype;
  Worker.prototype.unref = function (this: Worker) { unrefd.add(this); unref.call(this); };
  Worker.prototype.ref = function (this: Worker) { unrefd.delete(this); ref.call(this); };
  process.on('worker', (w) => { if (w.threadId !== -1) { workers.add(w); w.once('exit', () => workers.delete(w)); } });
}

/** Types of what keeps the event loop running, counted. */
function busy(): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
}

/**
 * Runs one command line as bin/tsgit would, in `cwd` with environment `env`, and then what would
 * happen before its process ended: nothing more is said until what it left running (timers,
 * file operations, child processes, worker threads that hold the process open) has finished;
 * the workers that would not hold it are stopped, as an exit would stop them, and its 'exit'
 * listeners run. Then the markers, on stdout and on stderr.
 */
async function runOne(nonce: string, c: BatchCommand, env: NodeJS.ProcessEnv): Promise<void> {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  process.env.NODE_NO_WARNINGS = '1';
  process.chdir(c.cwd);
  const listeners = PROCESS_EVENTS.map((e) => new Set<unknown>(process.listeners(e as 'exit')));
  const idle = busy();
  // bin/tsgit's choice of bundle, by bin/tsgit's own code (from the repository's bin/, which the
  // compiled tests do not sit beside).
  const { commandName, entryFor } = await import(pathToFileURL(path.join(ROOT, 'bin', 'command-entry.mjs')).href) as typeof import('../bin/command-entry.mjs');
  const { main } = await import(entryFor(commandName(c.args))) as { main(argv: string[]): Promise<number> };
  const status = await main(c.args);
  // bin/tsgit makes the status the process's; a command may have set another meanwhile.
  process.exitCode = undefined;
  const left = () => [...busy()].some(([type, n]) => n > (idle.get(type) ?? 0)) || [...workers].some((w) => !unrefd.has(w));
  while (left()) await new Promise((resolve) => setTimeout(resolve, 2));
  await Promise.all([...workers].map((w) => w.terminate()));
  PROCESS_EVENTS.forEach((e, i) => {
    for (const l of process.listeners(e as 'exit')) {
      if (listeners[i]!.has(l)) continue;
      process.removeListener(e as 'exit', l);
      if (e === 'exit') (l as (code: number) => void)(status);
    }
  });
  writeExactly(1, Buffer.from(`\0${nonce}:${status}\0`));
  writeExactly(2, Buffer.from(`\0${nonce}\0`));
}

if (process.argv[2] === BATCH_FLAG || process.argv[2] === SESSION_FLAG) {
  // As bin/tsgit: Node's warnings are not the command's output.
  process.removeAllListeners('warning');
  watchWorkers();
  // Made on first use and kept: not something a command leaves running.
  void process.stdout;
  void process.stderr;
}
if (process.argv[2] === BATCH_FLAG) {
  const nonce = process.argv[3]!;
  const env = { ...process.env };
  for (const c of JSON.parse(fs.readFileSync(process.argv[4]!, 'utf8')) as BatchCommand[]) await runOne(nonce, c, c.env ?? env);
}
if (process.argv[2] === SESSION_FLAG) {
  const nonce = process.argv[3]!;
  process.on('message', (m: BatchCommand & { env: NodeJS.ProcessEnv }) => {
    runOne(nonce, m, m.env).catch((e) => { process.exitCode = 1; console.error(e); process.disconnect(); });
  });
}
