// What clone and fetch share on the command line: whether to show progress, the server's progress
// relayed to stderr, and SIGINT/SIGTERM turned into an abort that ends the command with 128 + the
// signal's number, as git exits.
import os from 'node:os';
import { onInterrupt } from '../client/interrupt.js';
import { formatRemoteProgress, stderrIsSmartTerminal } from '../client/remote-progress.js';
import { UsageError } from '../core/errors.js';
import { writeAll } from './output.js';
import { progressWanted } from './progress.js';

/** The options clone and fetch both take, and their positional arguments. */
interface RemoteOptions {
  quiet: boolean;
  progress: boolean;
  depth?: number;
  uploadPack?: string;
  rest: string[];
}

/**
 * Reads clone's or fetch's command line: the options they share here, "--name=value" or
 * "--name value" for the others, which go to `own` (false: not an option of the command);
 * `inline` is the "=value" part, for options whose value is optional.
 */
export function parseRemoteOptions(args: readonly string[],
  own: (name: string, value: () => string, inline: string | undefined) => boolean): RemoteOptions {
  const o: RemoteOptions = { quiet: false, progress: false, rest: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = (): string => {
      if (eq > 0) return a.slice(eq + 1);
      const v = args[++i];
      if (v === undefined) throw new UsageError(`option '${name}' requires a value`);
      return v;
    };
    switch (name) {
      case '-q': case '--quiet': o.quiet = true; break;
      case '--progress': o.progress = true; break;
      case '--no-progress': o.progress = false; break;
      case '--depth': {
        const text = value();
        const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
        if (!(n > 0)) throw new UsageError(`depth ${text} is not a positive number`);
        o.depth = n;
        break;
      }
      case '-u': case '--upload-pack': o.uploadPack = value(); break;
      case '--': o.rest.push(...args.slice(i + 1)); i = args.length; break;
      default:
        if (own(name, value, eq > 0 ? a.slice(eq + 1) : undefined)) break;
        if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option '${a}'`);
        o.rest.push(a);
    }
  }
  return o;
}

export interface RemoteRun {
  showProgress: boolean;
  stderr: (text: string) => void;
  /** Present only when progress is shown. */
  onRemoteProgress?: (text: string) => void;
  signal: AbortSignal;
}

export async function runRemoteCommand(env: NodeJS.ProcessEnv, flags: { quiet: boolean; progress?: boolean },
  body: (run: RemoteRun) => Promise<number>, onInterrupted?: (error: unknown, run: RemoteRun) => void): Promise<number> {
  const showProgress = progressWanted(flags);
  const terminal = stderrIsSmartTerminal(env);
  const stderr = (text: string) => writeAll(2, Buffer.from(text, 'utf8'));
  const controller = new AbortController();
  let caught = 0;
  const release = onInterrupt((signal) => {
    caught = os.constants.signals[signal];
    controller.abort();
  });
  const run: RemoteRun = {
    showProgress, stderr, signal: controller.signal,
    ...(showProgress ? { onRemoteProgress: (text: string) => stderr(formatRemoteProgress(text, terminal)) } : {}),
  };
  // Should the event loop ever drain with the work unfinished, exit as a failure, not as 0.
  process.exitCode = 128;
  try {
    return await body(run);
  } catch (e) {
    if (controller.signal.aborted) {
      onInterrupted?.(e, run);
      return 128 + caught;
    }
    throw e;
  } finally {
    release();
  }
}
