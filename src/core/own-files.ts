// Where tsgit's own files are, for what is started from a file rather than imported: worker
// threads, serve's worker processes, and bin/tsgit for the transports that run a service as a
// child. Paths are relative to dist/src. The CLI runs bundled (scripts/bundle.mjs: a bundle per
// command, and dist/src/tsgit-main.js, tsgit-serve-relay.js and their chunks, all in dist/src),
// because Node 20 loads a hundred small ES modules in tens of milliseconds more than one file; in a chunk,
// `import.meta.url` is the chunk's, so a `new URL('./x.js', import.meta.url)` written beside the
// module that starts x would miss x's directory. This module finds dist/src from where it runs:
// compiled as itself, it is dist/src/core/own-files.js; bundled, it is in a chunk in dist/src.
const SRC_ROOT = new URL(import.meta.url.endsWith('/core/own-files.js') ? '../' : './', import.meta.url);

export function ownFile(relative: string): URL {
  return new URL(relative, SRC_ROOT);
}

/** What scripts/bundle.mjs bundles into one file each, as dist/src/tsgit-worker-<name>.js. */
export type WorkerName = 'commit-walk' | 'tree-walk' | 'index-pack' | 'checkout-write' | 'serve';

/** The bundled entry of a worker thread or process: it starts faster and holds less than its modules. */
export function ownWorker(name: WorkerName): URL {
  return ownFile(`tsgit-worker-${name}.js`);
}
