// What clone and fetch share on the command line: whether to show progress, the server's progress
// relayed to stderr, and SIGINT/SIGTERM turned into an abort that ends the command with 128 + the
// signal's number, as git exits.
import os from 'node:os';
import { onInterrupt } from '../client/interrupt.js';
import { formatRemoteProgress, stderrIsSmartTerminal } from '../client/remote-progress.js';
import { writeAll } from './output.js';
import { progressWanted } from './progress.js';

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
