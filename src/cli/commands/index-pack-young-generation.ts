// Receiving a pack (clone, fetch, index-pack) makes a little short-lived garbage for every object,
// hundreds of thousands of times, while index-pack's real state lives outside the JavaScript heap.
// V8 answers that allocation rate by growing the young generation to its 16 MiB semi-spaces, most
// of it resident: on `large` a fifth of clone's peak memory. Keeping the young generation at its
// initial 1 MiB semi-spaces costs a few more, cheap, scavenges (the garbage dies young) and saves
// 40-50 MiB. It is a process-wide V8 setting, so only the CLI makes it, and only for the commands
// that receive packs: walks such as rev-list keep many objects alive across scavenges and run
// measurably slower with it.
import v8 from 'node:v8';

const NO_GROWTH = '--semi-space-growth-factor=1';

/** Stops the young generation of this thread from growing, for the rest of the process. */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString(NO_GROWTH);
  // V8 reads the flag each time it considers growing, but raises it back to at least 2 whenever an
  // isolate is configured, which every worker thread (index-pack's resolvers, checkout's writer)
  // does as it starts: set it again once the worker runs.
  process.on('worker', (worker) => worker.once('online', () => v8.setFlagsFromString(NO_GROWTH)));
}
