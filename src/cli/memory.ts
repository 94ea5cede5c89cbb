// The CLI's memory settings for the commands that receive packs (clone, fetch, index-pack). They
// are process-wide V8 settings, so only the CLI makes them; library users keep their own.
//
// Receiving a pack makes a little short-lived garbage for every object, hundreds of thousands of
// times, while index-pack's real state lives outside the JavaScript heap. V8 answers that
// allocation rate by growing the young generation to its 16 MiB semi-spaces, most of it resident:
// on `large` a fifth of clone's peak memory. Keeping it at its initial 1 MiB semi-spaces costs a
// few more, cheap, scavenges (the garbage dies young) and saves 40-50 MiB. Other commands do not
// get it: walks such as rev-list keep many objects alive across scavenges and run measurably
// slower with it.
import v8 from 'node:v8';
import vm from 'node:vm';

const NO_GROWTH = '--semi-space-growth-factor=1';

/** Stops the young generation of this thread from growing, for the rest of the process. */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString(NO_GROWTH);
  // V8 reads the flag each time it considers growing, but raises it back to at least 2 whenever an
  // isolate is configured, which every worker thread (index-pack's resolvers, checkout's writer)
  // does as it starts: set it again once the worker runs.
  process.on('worker', (worker) => worker.once('online', () => v8.setFlagsFromString(NO_GROWTH)));
}

let gc: (() => void) | null = null;

/**
 * A full garbage collection now. For memory that lives outside the JavaScript heap and has just
 * become garbage in one piece (index-pack's tables, once the pack is stored): the heap itself is
 * small, so V8 would otherwise keep it until much later.
 */
export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    // The flag gives `gc` to contexts created from now on.
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}
