// The passes of index-pack over one pack, whatever is done with the result afterwards (written
// next to the pack, installed in a repository, or compared with an existing index):
//   1. read the input into shared memory while parsing it (parse.ts), handing verified bytes on;
//   2. link deltas to their bases and resolve them on every thread (link.ts, resolve.ts);
//   3. with fixThin, append the missing REF_DELTA bases from the repository (thin.ts);
//   4. with strict, confirm every reference of every commit, tree and tag exists (connectivity.ts);
//   5. check that no object collides with a different object of the same id in the repository.
import fs from 'node:fs';
import os from 'node:os';
import type { Readable } from 'node:stream';
import { CorruptError, GitError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import type { FsckOptions } from '../../object/fsck.js';
import { Progress, type ProgressOptions } from '../../cli/progress.js';
import { ObjectChecker, type ReferenceList } from './check.js';
import { checkCollisions, checkConnectivity, type ObjectLookup } from './connectivity.js';
import { linkDeltas } from './link.js';
import { PackParser } from './parse.js';
import { ABORT, RESOLVED, Resolver, type ResolveShared } from './resolve.js';
import { sortByOid } from './sort.js';
import { MAX_PACK_BYTES, PackStore } from './store.js';
import { ObjectTable } from './tables.js';
import { appendThinBases } from './thin.js';
import { ResolverThreads } from './threads.js';

export type PackInput = string | Readable | AsyncIterable<Uint8Array>;

/** git refuses no depth when indexing; this bounds the work a hostile chain can ask for. */
export const DEFAULT_MAX_DEPTH = 10000;
/** Per thread, like git's core.deltaBaseCacheLimit (96 MiB shared by its threads). */
const DEFAULT_CACHE_LIMIT = 48 << 20;
const FILE_CHUNK = 8 << 20;

export interface PassOptions {
  /** Names the pack in messages. */
  name: string;
  /** Total threads resolving deltas, this one included (default: the machine's parallelism). */
  threads?: number;
  fixThin?: boolean;
  /** Runs git's fsck checks and the connectivity check (index-pack --strict). */
  strict?: FsckOptions | null;
  /** The repository's objects: thin-pack bases, connectivity and collision checks. */
  lookup?: ObjectLookup | null;
  /** zlib level of appended thin-pack bases (git: core.compression, default 1). */
  compressionLevel?: number;
  maxDepth?: number;
  cacheLimit?: number;
  /** Refuses a pack larger than this many bytes (git's --max-input-size). */
  maxInputSize?: number;
  /** Receives the pack's bytes as they are verified (to write the .pack of a stream). */
  onData?: (bytes: Uint8Array) => void;
  progress?: ProgressOptions & { title?: string; resolving?: boolean };
}

export interface PassResult {
  store: PackStore;
  table: ObjectTable;
  count: number;
  /** Objects appended by fixThin (they are the last `appended` of `count`). */
  appended: number;
  deltas: number;
  packHash: Buffer;
  /** The pack header and entries as first received, before fixThin changed them. */
  receivedEnd: number;
  /** Object numbers in id order. */
  sorted: Int32Array;
  /** Bytes of a stream that came after the pack. */
  trailing: Buffer;
}

export async function runPasses(input: PackInput, options: PassOptions): Promise<PassResult> {
  const threadCount = Math.max(1, options.threads ?? os.availableParallelism());
  const threads = new ResolverThreads(threadCount - 1);
  try {
    return await passes(input, options, threads);
  } finally {
    await threads.close();
  }
}

async function passes(input: PackInput, options: PassOptions, threads: ResolverThreads): Promise<PassResult> {
  const name = options.name;
  const fromFile = typeof input === 'string';
  const firstChecker = options.strict ? new ObjectChecker(options.strict, name) : null;
  const progressOn = options.progress?.enabled ?? false;

  // Pass 1.
  let store: PackStore;
  let parser: PackParser;
  let table = new ObjectTable(0);
  let trailing: Buffer;
  let receiving: Progress | null = null;
  const showReceiving = (): void => {
    if (!progressOn || parser.count < 0) return;
    if (!receiving) {
      // As in git, the throughput starts with the first read after the progress does.
      receiving = new Progress(options.progress?.title ?? (fromFile ? 'Indexing objects' : 'Receiving objects'), parser.count, options.progress);
      receiving.update(parser.parsed);
      return;
    }
    receiving.update(parser.parsed, fromFile ? undefined : store.length);
  };
  if (fromFile) {
    const fd = fs.openSync(input, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      if (size > MAX_PACK_BYTES) throw new GitError('pack', 'too-large', `${name}: pack is ${size} bytes, larger than tsgit can index (${MAX_PACK_BYTES})`);
      if (options.maxInputSize && size > options.maxInputSize) throw new GitError('pack', 'too-large', `${name}: pack exceeds maximum allowed size (${options.maxInputSize} bytes)`);
      store = new PackStore(Math.max(size, 1));
      parser = new PackParser(store, table, { name, checker: firstChecker, onData: options.onData });
      let eof = false;
      for (;;) {
        const want = parser.step(eof);
        showReceiving();
        if (want === 0) break;
        // step() only asks for more than the store holds, so each round reads or reaches EOF.
        do {
          const len = Math.max(1, Math.min(FILE_CHUNK, size - store.length));
          const n = fs.readSync(fd, store.reserve(len), store.length, len, null);
          if (n === 0) { eof = true; break; }
          store.length += n;
        } while (store.length < want);
      }
      if (store.length > parser.end || fs.readSync(fd, Buffer.alloc(1), 0, 1, null) > 0) {
        throw new CorruptError('pack', `${name}: pack has junk at the end (after the trailer at offset ${parser.end - OID_BYTES})`);
      }
    } finally {
      fs.closeSync(fd);
    }
    trailing = Buffer.alloc(0);
  } else {
    store = new PackStore();
    parser = new PackParser(store, table, { name, checker: firstChecker, onData: options.onData });
    let want = 1;
    for await (const chunk of input as AsyncIterable<Uint8Array>) {
      store.append(chunk);
      if (options.maxInputSize && store.length > options.maxInputSize && !parser.done) {
        throw new GitError('pack', 'too-large', `${name}: pack exceeds maximum allowed size (${options.maxInputSize} bytes)`);
      }
      if (store.length >= want) {
        want = parser.step(false);
        showReceiving();
        if (want === 0) break;
      }
    }
    if (!parser.done) {
      parser.step(true);
      showReceiving();
    }
    trailing = Buffer.from(store.bytes.subarray(parser.end, store.length));
  }
  (receiving as Progress | null)?.done();
  table = parser.table;
  const parsedCount = parser.count;
  const packEnd = parser.end;

  // Pass 2.
  const links = linkDeltas(table, parsedCount, parser, name);
  const control = new Int32Array(new SharedArrayBuffer(16));
  const shared: ResolveShared = {
    name, pack: store.buffer, packLength: store.length, table: table.shared(), count: parsedCount,
    childStart: links.childStart, children: links.children,
    refObjects: links.refObjects, refIds: links.refIds, refCount: links.refCount,
    tasks: links.tasks, taskCount: links.taskCount, control: control.buffer as SharedArrayBuffer,
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH, cacheLimit: options.cacheLimit ?? DEFAULT_CACHE_LIMIT,
    strict: options.strict ?? null,
  };
  const deltas = parser.ofsCount + parser.refCount;
  const resolving = progressOn && deltas > 0 && (options.progress?.resolving ?? true)
    ? new Progress('Resolving deltas', deltas, options.progress)
    : null;
  const showResolving = (): void => { resolving?.update(Atomics.load(control, RESOLVED)); };
  const lists: ReferenceList[] = [];
  if (firstChecker) lists.push(firstChecker.references());
  const useWorkers = threads.size > 0 && links.taskCount > 1;
  const workersDone = useWorkers ? threads.start(shared) : Promise.resolve([] as ReferenceList[]);
  // Keep a rejected promise from being reported as unhandled while this thread is busy.
  workersDone.catch(() => {});
  const main = new Resolver(shared, showResolving);
  try {
    main.run();
  } catch (e) {
    Atomics.store(control, ABORT, 1);
    await workersDone.catch(() => {});
    throw e;
  }
  const timer = resolving ? setInterval(showResolving, 250) : null;
  try {
    lists.push(...await workersDone);
  } finally {
    if (timer) clearInterval(timer);
  }
  if (main.checker) lists.push(main.checker.references());

  // Pass 3.
  let appended = 0;
  let packHash = parser.packHash!;
  let count = parsedCount;
  if (options.fixThin && Atomics.load(control, RESOLVED) < deltas) {
    const thin = appendThinBases({
      store, table, parser, shared, lookup: options.lookup ?? null, name,
      level: options.compressionLevel ?? 1, onProgress: showResolving,
    });
    table = thin.table;
    appended = thin.appended;
    count += appended;
    if (appended) packHash = thin.packHash;
    if (thin.checker) lists.push(thin.checker.references());
  }
  const resolved = Atomics.load(control, RESOLVED);
  if (resolved < deltas) throw unresolvedError(table, count, parser, name, deltas - resolved);
  if (resolving) {
    if (appended) resolving.done(`completed with ${appended} local object${appended === 1 ? '' : 's'}`, resolved);
    else resolving.done('done', resolved);
  }

  const sorted = sortByOid(table.ids, count);
  if (options.strict) checkConnectivity(lists, table, sorted, count, options.lookup ?? null, name);
  if (options.lookup) {
    const finalShared: ResolveShared = { ...shared, packLength: store.length, table: table.shared(), count };
    const reader = new Resolver(finalShared);
    checkCollisions(table, parsedCount, options.lookup, name, (i) => reader.objectData(i));
  }
  return { store, table, count, appended, deltas, packHash, receivedEnd: packEnd - OID_BYTES, sorted, trailing };
}

function unresolvedError(table: ObjectTable, count: number, parser: PackParser, name: string, n: number): CorruptError {
  for (let k = 0; k < parser.refCount; k++) {
    const d = parser.refObjects[k]!;
    if (table.state[d] !== 0) continue;
    return new CorruptError('pack', `${name}: pack has ${n} unresolved delta${n === 1 ? '' : 's'}: the delta at offset ${table.offset[d]} needs base ${toHex(parser.refIds, k * OID_BYTES)}, which is neither in the pack nor in the repository`);
  }
  for (let i = 0; i < count; i++) {
    if (table.isDelta(i) && table.state[i] === 0) {
      return new CorruptError('pack', `${name}: pack has ${n} unresolved delta${n === 1 ? '' : 's'}, the first at offset ${table.offset[i]}`);
    }
  }
  return new CorruptError('pack', `${name}: pack has ${n} unresolved deltas`);
}
