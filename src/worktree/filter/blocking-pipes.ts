// A child process whose stdin and stdout are plain blocking pipes on our side, for a conversation
// driven with fs.writeSync/readSync as git drives its filter processes (sub-process.c): a write,
// then a read that waits for the answer. Node's own stdio pipes are non-blocking sockets served by
// the event loop, and a checkout through git-lfs spent most of its own CPU in that machinery (a
// stream write, a read callback, a promise and a timer for every one of ~4,000 messages), on the
// two cores git-lfs itself needs. Node has no pipe(2), so the pipes are FIFOs, made in a private
// directory and unlinked as soon as both ends are open.
//
// Each FIFO is first held open read-write (Linux allows it on a FIFO), so that neither of the
// one-way opens that follow waits for the other side; those one-way ends are what the child and
// we keep, so that the child sees end-of-file when we close its stdin, and we see it when the
// child's stdout goes. Every fd is opened close-on-exec (libuv's default) but the two that spawn
// gives the child as its stdin and stdout.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitError } from '../../core/errors.js';

export interface BlockingChild {
  child: ChildProcess;
  /** Our end of its stdin, blocking. */
  input: number;
  /** Our end of its stdout, blocking. */
  output: number;
  /** The program could not be started (Node says why only later, as an event: not found, mostly). */
  notStarted: boolean;
}

const { O_RDONLY, O_WRONLY, O_RDWR } = fs.constants;

/** Starts `file` with `args`; its stderr is ours. */
export function spawnWithBlockingPipes(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): BlockingChild {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsgit-filter-'));
  const opened: number[] = [];
  const open = (p: string, flags: number): number => {
    const fd = fs.openSync(p, flags);
    opened.push(fd);
    return fd;
  };
  try {
    const toChild = path.join(dir, 'in'), fromChild = path.join(dir, 'out');
    try {
      execFileSync('mkfifo', ['-m', '600', toChild, fromChild], { stdio: 'ignore' });
    } catch (e) {
      throw new GitError('worktree', 'filter-pipe', `cannot create pipes for a filter process in ${dir}: ${(e as Error).message}`);
    }
    open(toChild, O_RDWR);
    const childIn = open(toChild, O_RDONLY);
    const input = open(toChild, O_WRONLY);
    open(fromChild, O_RDWR);
    const childOut = open(fromChild, O_WRONLY);
    const output = open(fromChild, O_RDONLY);
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: [childIn, childOut, 'inherit'] });
    // Node reports a program it could not start as an event after this returns, when the caller
    // has long read the end of the output; without a pid it never ran.
    child.on('error', () => {});
    const started: BlockingChild = { child, input, output, notStarted: child.pid === undefined };
    for (const fd of opened) if (fd !== input && fd !== output) fs.closeSync(fd);
    opened.length = 0;
    return started;
  } finally {
    for (const fd of opened) fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
