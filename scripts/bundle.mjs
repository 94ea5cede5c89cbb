// Bundles the compiled CLI (dist/src) for a fast start. Node 20 loads a graph of ES modules file
// by file, each resolved, read and linked in turns of the event loop: tens of milliseconds for
// the hundred modules of a command, which every ssh fetch, push and filter-driven checkout pays.
//   - dist/src/tsgit-main.js and tsgit-serve-relay.js, with their shared chunks: the whole CLI,
//     each command loaded when it runs;
//   - dist/src/tsgit-cmd-<name>.js: each command alone with the dispatcher, one file, which
//     bin/tsgit loads when the command line names it (a push started 40 ms sooner from one file
//     than from its 28 chunks). Anything else it is asked for (another command's name, --help)
//     it takes from tsgit-main.js.
//   - dist/src/tsgit-worker-<name>.js: every worker thread and serve's worker process, one file
//     each (WORKERS). Their start is waited for: loading the commit walker's thirty modules one by
//     one took ~120 ms, its bundle ~40. A bundle also costs less memory for as long as the worker
//     lives: index-pack's resolver thread from its 24 modules held 4.4 MiB more RSS than from one
//     file (Node's module loader touches more of its own code for each), and index-pack's peak
//     memory is measured against git's.
// All land in dist/src, beside the modules that other worker threads and child processes are
// started from (src/core/own-files.ts finds them from there).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/src');
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' };

// What an earlier bundle left (chunk names change with their contents).
for (const f of fs.readdirSync(out)) if (/^tsgit-.*\.js$/.test(f)) fs.rmSync(path.join(out, f));

await build({
  ...common,
  entryPoints: [path.join(out, 'cli/main.js'), path.join(out, 'transport/serve-relay.js')],
  splitting: true,
  outdir: out,
  entryNames: 'tsgit-[name]',
  chunkNames: 'tsgit-chunk-[hash]',
});

// `help` lists every command: it is the whole CLI anyway.
const names = fs.readdirSync(path.join(out, 'cli/commands'))
  .filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)).filter((n) => n !== 'help');
const entry = (name) => `
import { dispatch } from './dispatch.js';
import * as command from './commands/${name}.js';
const whole = () => import('./tsgit-main.js');
const commands = {
  load: async (n) => (n === ${JSON.stringify(name)} ? command : (await whole()).commands.load(n)),
  listText: async () => (await whole()).commands.listText(),
};
export function main(argv) {
  return dispatch(argv, commands);
}
`;
await Promise.all(names.map((name) => build({
  ...common,
  stdin: { contents: entry(name), resolveDir: path.join(out, 'cli'), sourcefile: `tsgit-cmd-${name}.js`, loader: 'js' },
  outfile: path.join(out, `tsgit-cmd-${name}.js`),
  // Resolved at run time from the bundle's own place, dist/src.
  external: ['./tsgit-main.js'],
})));

// The names src/core/own-files.ts ownWorker() is asked for.
const WORKERS = {
  'commit-walk': 'walk/commit-walk-worker.js',
  'tree-walk': 'walk/tree-walk-worker.js',
  'index-pack': 'packing/index-pack/worker.js',
  'checkout-write': 'worktree/checkout/write-worker.js',
  'serve': 'server/worker-main.js',
};
await Promise.all(Object.entries(WORKERS).map(([name, file]) => build({
  ...common,
  entryPoints: [path.join(out, file)],
  outfile: path.join(out, `tsgit-worker-${name}.js`),
})));
