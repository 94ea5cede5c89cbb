// The push client's pack goes to the connection through a bounded queue (send-pack.ts streamed).
// The pack writer may hand over several chunks before it waits (its last chunk and the trailer);
// every wait it is given must end, or the push hangs with the pack half sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamed } from '../src/client/push/send-pack.js';

test('a writer that hands over many chunks at once, then waits for all, is never left waiting', async () => {
  const chunks = Array.from({ length: 40 }, (_, i) => Buffer.from([i]));
  const got: number[] = [];
  const reading = (async () => {
    for await (const c of streamed(async (sink) => {
      // Ten at a time without waiting in between, as PackStream.finish() sends two.
      for (let i = 0; i < chunks.length; i += 10) {
        const waits = chunks.slice(i, i + 10).map((c) => sink(c)).filter(Boolean);
        await Promise.all(waits);
      }
    })) {
      got.push(c[0]!);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([reading, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('the writer was left waiting')), 5000); })]);
  clearTimeout(timer);
  assert.deepEqual(got, chunks.map((c) => c[0]));
});
