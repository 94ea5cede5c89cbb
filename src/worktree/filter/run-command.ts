// One file through a `filter.<driver>.smudge` or `.clean` command, as git's
// apply_single_file_filter runs it: the command started through the shell in the work tree, the
// content on its stdin (a filter that stops reading early is not an error), its stdout taken as
// the result, its stderr left on ours. Any failure (it cannot start, it exits non-zero or dies of
// a signal) is reported with git's error lines and gives null: the caller decides, from
// `required`, whether that is fatal.
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { shellArgv } from '../../core/shell.js';
import { expandPath } from './shell-command.js';

export interface FilterContext {
  /** The work tree: filters run there, as in git. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where git's "error: ..." lines go. */
  log: (line: string) => void;
}

/** Signals after which git says nothing more than the exit code (run-command.c wait_or_whine). */
const QUIET_SIGNALS = new Set(['SIGINT', 'SIGQUIT', 'SIGPIPE']);

/** Runs `command` over `input` for `path`; the output chunks, or null when the filter failed. */
export function runFilterCommand(command: string, path: Uint8Array, input: Uint8Array, ctx: FilterContext): Promise<Buffer[] | null> {
  const expanded = expandPath(command, path);
  const { command: file, args } = shellArgv(expanded);
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let feedError: Error | null = null;
    let started = true;
    const child = spawn(file, args, { cwd: ctx.cwd, env: ctx.env, stdio: ['pipe', 'pipe', 'inherit'] });
    child.on('error', (e: NodeJS.ErrnoException) => {
      // Only a failed start reaches here: stdin and stdout have their own handlers.
      started = false;
      ctx.log(`error: cannot run ${expanded}: ${e.code === 'ENOENT' ? 'No such file or directory' : e.message}\n`);
      ctx.log(`error: cannot fork to run external filter '${command}'\n`);
      ctx.log(`error: external filter '${command}' failed\n`);
      resolve(null);
    });
    child.stdin.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') feedError = e;
    });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stdout.on('error', () => {}); // the exit status reports what went wrong
    child.on('close', (code, signal) => {
      if (!started) return resolve(null);
      if (feedError) ctx.log(`error: cannot feed the input to external filter '${command}'\n`);
      let status = code ?? 0;
      if (signal) {
        if (!QUIET_SIGNALS.has(signal)) ctx.log(`error: ${expanded} died of signal ${osConstants.signals[signal]}\n`);
        status = 128 + osConstants.signals[signal];
      }
      if (status) ctx.log(`error: external filter '${command}' failed ${status}\n`);
      if (status || feedError) {
        ctx.log(`error: external filter '${command}' failed\n`);
        return resolve(null);
      }
      resolve(out);
    });
    child.stdin.end(input);
  });
}
