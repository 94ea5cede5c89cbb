// runInBackground (src/core/background-thread.ts) lowers the priority of the calling thread only:
// the worker that resolves deltas during index-pack's first pass must not slow the process's
// other threads.
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const module = fileURLToPath(new URL('../src/core/background-thread.js', import.meta.url));

test('a worker thread that runs in the background is niced, and the process is not', { skip: process.platform !== 'linux' && 'threads have nice values of their own on Linux only' }, async () => {
  const before = os.getPriority(process.pid);
  const code = `
    const { parentPort } = require('node:worker_threads');
    const fs = require('node:fs'), os = require('node:os'), path = require('node:path');
    import(${JSON.stringify(module)}).then(({ runInBackground }) => {
      runInBackground();
      const tid = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
      parentPort.postMessage({ tid, priority: os.getPriority(tid) });
    });`;
  const worker = new Worker(code, { eval: true });
  try {
    const { tid, priority } = await new Promise<{ tid: number; priority: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    assert.notEqual(tid, process.pid);
    assert.equal(priority, Math.max(before, 10), 'the worker thread runs at nice 10');
    assert.equal(os.getPriority(process.pid), before, 'the main thread keeps its priority');
  } finally {
    await worker.terminate();
  }
});
