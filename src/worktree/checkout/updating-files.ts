// The "Updating files" meter of a checkout or switch, behind the (written, total) reports of the
// file writers. Like git's, it is a delayed meter: a checkout that takes under two seconds shows none.
import type { Progress, ProgressMeter } from '../../core/progress.js';

export interface FilesMeter {
  /** What the writers call after each file (or batch of files). */
  readonly report: ((done: number, total: number) => void) | undefined;
  stop(): void;
}

export function updatingFiles(progress: Progress | undefined): FilesMeter {
  if (!progress) return { report: undefined, stop() {} };
  let meter: ProgressMeter | null = null;
  return {
    report(done, total) {
      (meter ??= progress('Updating files', total, { delayed: true })).update(done);
    },
    stop() {
      meter?.stop();
    },
  };
}
