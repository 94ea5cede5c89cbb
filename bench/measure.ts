// Runs one command under GNU time (`/usr/bin/time -f "%e %U %S %M"`), which reports wall seconds,
// user and system CPU seconds and peak resident set size (KiB) of the process and its children.
// Its report goes to a file (-o) so that the command's own stderr stays separate.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const GNU_TIME = '/usr/bin/time';

export interface Command {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A file fed to stdin; stdin is empty otherwise. */
  stdin?: string;
  /** Hash stdout (SHA-1) instead of sending it to /dev/null. */
  hashStdout: boolean;
}

export interface Measurement {
  wall: number;
  user: number;
  sys: number;
  rssKiB: number;
  /** Exit status, or 128 + signal number when killed by a signal. */
  status: number;
  stderrTail: string;
  stdoutSha1: string | null;
  stdoutBytes: number;
}

export function checkGnuTime(): void {
  try {
    fs.accessSync(GNU_TIME, fs.constants.X_OK);
  } catch {
    throw new Error(`${GNU_TIME} is missing: install GNU time (Debian: apt-get install time); the shell builtin cannot report peak memory`);
  }
}

/** `reportFile` is scratch space for time's report; it is overwritten. */
export async function measure(cmd: Command, reportFile: string): Promise<Measurement> {
  fs.rmSync(reportFile, { force: true });
  const stdinFd = fs.openSync(cmd.stdin ?? '/dev/null', 'r');
  const nullFd = cmd.hashStdout ? -1 : fs.openSync('/dev/null', 'w');
  try {
    const child = spawn(GNU_TIME, ['-f', '%e %U %S %M', '-o', reportFile, ...cmd.argv], {
      cwd: cmd.cwd, env: cmd.env, stdio: [stdinFd, cmd.hashStdout ? 'pipe' : nullFd, 'pipe'],
    });
    const hash = cmd.hashStdout ? crypto.createHash('sha1') : null;
    let stdoutBytes = 0;
    child.stdout?.on('data', (b: Buffer) => { hash!.update(b); stdoutBytes += b.length; });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (s: string) => { stderr = (stderr + s).slice(-8192); });
    const status = await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? osSignal(signal) : 0)));
    });
    const t = parseReport(reportFile, cmd.argv);
    return { ...t, status, stderrTail: stderr, stdoutSha1: hash ? hash.digest('hex') : null, stdoutBytes };
  } finally {
    fs.closeSync(stdinFd);
    if (nullFd >= 0) fs.closeSync(nullFd);
  }
}

function osSignal(name: NodeJS.Signals): number {
  return (({ SIGKILL: 9, SIGTERM: 15, SIGSEGV: 11, SIGABRT: 6, SIGINT: 2 }) as Record<string, number>)[name] ?? 0;
}

function parseReport(file: string, argv: string[]): { wall: number; user: number; sys: number; rssKiB: number } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${GNU_TIME} wrote no report for ${path.basename(argv[0]!)} ${argv.slice(1).join(' ')}`, { cause: err });
  }
  // Before the numbers, time may add a line such as "Command exited with non-zero status 1".
  const last = text.trim().split('\n').pop() ?? '';
  const m = /^(\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+)$/.exec(last);
  if (!m) throw new Error(`cannot parse ${GNU_TIME}'s report "${text.trim()}" for ${argv.join(' ')}`);
  return { wall: Number(m[1]), user: Number(m[2]), sys: Number(m[3]), rssKiB: Number(m[4]) };
}

/** The line of stderr most likely to say what went wrong. */
export function errorLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /\b(error|fatal|usage|cannot|not found)\b/i.test(l)) ?? lines.pop() ?? '(no stderr)';
}
