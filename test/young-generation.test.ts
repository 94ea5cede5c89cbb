// keepYoungGenerationSmall (src/core/young-generation.ts) keeps V8's young generation small in the
// CLI's process and in the worker threads it starts afterwards, but not in the child processes it
// runs (hooks, filters, a local tsgit upload-pack), which keep V8's defaults. Measured as V8 sees
// it: the new space's size after a worker or child has churned through short-lived objects.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const module = JSON.stringify(fileURLToPath(new URL('../src/core/young-generation.js', import.meta.url)));

// Short-lived garbage at index-pack's rate, then the new space's size (V8 grows it to 16 MiB
// semi-spaces under this load unless the growth factor is 1).
const churn = `
  const v8 = await import('node:v8');
  let keep = [];
  for (let i = 0; i < 2e6; i++) { keep.push({ a: i, b: [i] }); if (keep.length > 2e4) keep = []; }
  const newSpace = v8.getHeapSpaceStatistics().find(s => s.space_name === 'new_space').space_size;`;

// A process that asks for the small young generation (or not), then reports a worker's and a
// child process's new space, each of which does what tsgit's workers do at their start.
const script = (ask: boolean): string => `
  import { Worker } from 'node:worker_threads';
  import { spawnSync } from 'node:child_process';
  const { keepYoungGenerationSmall } = await import(${module});
  ${ask ? 'keepYoungGenerationSmall();' : ''}
  const start = \`const { keepYoungGenerationSmallInWorker } = await import(${module}); keepYoungGenerationSmallInWorker();\`;
  const worker = new Worker(\`const { parentPort } = await import('node:worker_threads'); \${start} ${churn.replace(/`/g, '\\`')} parentPort.postMessage(newSpace);\`, { eval: true });
  const inWorker = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', \`\${start} ${churn.replace(/`/g, '\\`')} console.log(newSpace);\`], { encoding: 'utf8' });
  console.log(JSON.stringify({ worker: inWorker, child: Number(child.stdout) }));`;

function newSpaces(ask: boolean): { worker: number; child: number } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(ask)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { worker: number; child: number };
}

test('the small young generation reaches worker threads started afterwards, not child processes', () => {
  const asked = newSpaces(true);
  const not = newSpaces(false);
  assert.ok(not.worker >= 16 << 20, `a worker of a process that did not ask grows its new space (${not.worker})`);
  assert.ok(asked.worker <= 4 << 20, `a worker of a process that asked keeps its new space small (${asked.worker})`);
  assert.ok(asked.child >= 16 << 20, `a child process keeps V8's defaults (${asked.child})`);
});
