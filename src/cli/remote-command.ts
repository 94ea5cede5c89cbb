// What clone and fetch share on the command line: the history to fetch, how much to say and whether to show progress,
// the server's progress relayed to stderr, and SIGINT/SIGTERM turned into an abort that ends the
// command with 128 + the signal's number, as git exits.
import os from 'node:os';
import { parseApproxDate } from '../core/approxidate.js';
import { onInterrupt } from '../client/interrupt.js';
import { formatRemoteProgress, stderrIsSmartTerminal } from '../client/remote-progress.js';
import { UsageError } from '../core/errors.js';
import type { HistoryShape } from '../protocol/index.js';
import { writeStderr } from './output.js';
import { parseOptions } from './parse-options.js';
import { progressWanted } from './progress.js';
import { verbosityAfter } from './verbosity.js';

/** The options clone and fetch both take, and their positional arguments. */
interface RemoteOptions {
  /** git's verbosity level: below 0 quiet (-q), above 0 verbose (-v). */
  verbosity: number;
  progress: boolean;
  depth?: number;
  /** --shallow-since as given: read by historyShape(), once the command runs. */
  shallowSince?: string;
  shallowExclude: string[];
  uploadPack?: string;
  rest: string[];
}

/**
 * Reads clone's or fetch's command line: the options they share here, "--name=value" or
 * "--name value" for the others, which go to `own` (false: not an option of the command);
 * `inline` is the "=value" part, for options whose value is optional. `-u` is clone's short
 * --upload-pack; fetch's is --update-head-ok, its own.
 */
export function parseRemoteOptions(command: 'clone' | 'fetch', args: readonly string[],
  own: (name: string, value: () => string, inline: string | undefined) => boolean): RemoteOptions {
  const o: RemoteOptions = { verbosity: 0, progress: false, shallowExclude: [], rest: [] };
  o.rest = parseOptions(args, (name, value, inline) => {
    const level = verbosityAfter(name, o.verbosity);
    if (level !== undefined) {
      o.verbosity = level;
      return true;
    }
    switch (name) {
      case '--progress': o.progress = true; break;
      case '--no-progress': o.progress = false; break;
      case '--depth': {
        const text = value();
        const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
        if (!(n > 0)) throw new UsageError(`depth ${text} is not a positive number`);
        o.depth = n;
        break;
      }
      case '--shallow-since': o.shallowSince = value(); break;
      case '--shallow-exclude': o.shallowExclude.push(value()); break;
      case '-u':
        if (command !== 'clone') return own(name, value, inline);
        o.uploadPack = value();
        break;
      case '--upload-pack': o.uploadPack = value(); break;
      default: return own(name, value, inline);
    }
    return true;
  });
  return o;
}

/** The history asked for: --depth, or fetch's --deepen (`deepen`, counted from the current boundary). */
export function historyShape(o: RemoteOptions, deepen?: number): HistoryShape {
  return {
    depth: deepen || (o.depth ?? 0), deepenRelative: Boolean(deepen),
    deepenSince: o.shallowSince !== undefined ? parseApproxDate(o.shallowSince) : null, deepenNot: o.shallowExclude,
  };
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
  const controller = new AbortController();
  let caught = 0;
  const release = onInterrupt((signal) => {
    caught = os.constants.signals[signal];
    controller.abort();
  });
  const run: RemoteRun = {
    showProgress, stderr: writeStderr, signal: controller.signal,
    ...(showProgress ? { onRemoteProgress: (text: string) => writeStderr(formatRemoteProgress(text, terminal)) } : {}),
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
