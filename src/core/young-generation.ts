// V8's young generation kept at its first 1 MiB semi-spaces, for the commands that receive packs
// (bin/tsgit says which, and why). The setting is one process-wide V8 flag, and V8 raises it back
// to at least 2 whenever it configures an isolate: every worker thread does as it starts. The main
// thread cannot set it again in time (an event for the worker's start waits for its event loop,
// which index-pack's first pass holds for seconds; meanwhile the main thread's semi-spaces grew to
// 4 MiB). So each worker of those commands sets it again itself, first thing, when the CLI has
// asked for it through worker_threads' environment data, which every thread started afterwards
// inherits and child processes do not: a hook, a filter or a local upload-pack that is itself
// tsgit keeps V8's defaults unless its own command asks. Library users keep their settings.
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';

const SMALL_YOUNG_GENERATION = 'tsgit:small-young-generation';
const NO_GROWTH = '--semi-space-growth-factor=1';

/** For the CLI's main thread, before the command loads: the small young generation, here and in its workers. */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString(NO_GROWTH);
  setEnvironmentData(SMALL_YOUNG_GENERATION, true);
}

/** In a worker thread, at its start: the small young generation again, if the CLI asked for it. */
export function keepYoungGenerationSmallInWorker(): void {
  if (getEnvironmentData(SMALL_YOUNG_GENERATION) === true) setFlagsFromString(NO_GROWTH);
}
