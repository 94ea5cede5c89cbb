// V8's young generation kept at its first 1 MiB semi-spaces, for the commands that receive packs
// (bin/tsgit says which, and why). The setting is one process-wide V8 flag, and V8 raises it back
// to at least 2 whenever it configures an isolate: every worker thread does as it starts. The main
// thread cannot set it again in time (an event for the worker's start waits for its event loop,
// which index-pack's first pass holds for seconds; meanwhile the main thread's semi-spaces grew to
// 4 MiB). So each worker of those commands sets it again itself, first thing, when the CLI has
// asked for it through the environment (TSGIT_SMALL_YOUNG_GENERATION=1), which threads inherit.
// Library users keep their settings.
import { setFlagsFromString } from 'node:v8';

const SMALL_YOUNG_GENERATION_ENV = 'TSGIT_SMALL_YOUNG_GENERATION';
const NO_GROWTH = '--semi-space-growth-factor=1';

/** For the CLI's main thread, before the command loads: the small young generation, here and in its workers. */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString(NO_GROWTH);
  process.env[SMALL_YOUNG_GENERATION_ENV] = '1';
}

/** In a worker thread, at its start: the small young generation again, if the CLI asked for it. */
export function keepYoungGenerationSmallInWorker(): void {
  if (process.env[SMALL_YOUNG_GENERATION_ENV] === '1') setFlagsFromString(NO_GROWTH);
}
