// The passes of index-pack over one pack, whatever is done with the result afterwards (written
// next to the pack, installed in a repository, or compared with an existing index):
//   1. parse the input as it arrives (parse.ts), handing the parsed bytes on to be written, and
//      what it inflates to a resolver thread, which hashes whole objects and resolves the deltas
//      whose bases it can get as they come (stream-resolve.ts);
//   2. link the deltas left to their bases and resolve them on every thread (link.ts, resolve.ts);
//   3. with fixThin, append the missing REF_DELTA bases from the repository (thin.ts);
//   4. with strict, confirm every reference of every commit, tree and tag exists (connectivity.ts),
//      and check every blob a tree names `.gitmodules` (with the caller's gitmodules check);
//   5. check that no object collides with a different object of the same id in the repository.
// Memory: the tables (46 bytes an object), the delta links, a window of input, and each
// resolver thread's bounded cache of bases (the first pass's an eighth of the second's, given
// back before the second starts); the pack itself stays on disk and the resolvers read deltas and
// base objects from it.
import fs from 'node:fs';
import os from 'node:os';
import type { Readable } from 'node:stream';
import { CorruptError, GitError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import type { FsckOptions, FsckProblem } from '../../object/fsck.js';
import { OBJ_BLOB, typeName } from '../../object/type.js';
import type { Progress, ProgressMeter } from '../../core/progress.js';
import { sortedIds, type ReferenceList } from './check.js';
import { SharedIdIndex } from './id-index.js';
import { checkCollisions } from './collision.js';
import { checkConnectivity, type ObjectLookup } from './connectivity.js';
import { FirstPassRingWriter } from './first-pass-ring.js';
import { linkDeltas } from './link.js';
import type { PackObserver, PackSink } from './observe.js';
import { PackParser } from './parse.js';
import { feedStream } from './stream-feed.js';
import { ABORT, RESOLVED, Resolver, type ResolveShared } from './resolve.js';
import { findSorted, sortByOid } from './sort.js';
import { MAX_DEPTH, MAX_ROWS, ObjectTable, STREAMED } from './tables.js';
import type { StreamResult } from './stream-resolve.js';
import { appendThinBases } from './thin.js';
import { ResolverThreads } from './threads.js';
import { PackWindow } from './window.js';

export type PackInput = string | Readable | AsyncIterable<Uint8Array>;

/** git refuses no depth when indexing; this bounds the work a hostile chain can ask for. */
export const DEFAULT_MAX_DEPTH = 10000;
/** Bases held by all resolver threads together (git's core.deltaBaseCacheLimit is 96 MiB). */
const DEFAULT_CACHE_LIMIT = 32 << 20;
/**
 * Bytes read from a pack file at a time. The window holds a chunk and the entry it cuts, so it
 * grows to twice this: more only costs memory (every fresh page is a fault), since reads of a
 * megabyte already make the system calls a negligible part of the pass.
 */
const FILE_CHUNK = 1 << 20;
/** Packs with fewer objects are resolved on the calling thread alone when threads were asked for. */
const THREADS_FROM = 2000;
/**
 * And when they were not (clone, fetch, a push received, index-pack without --threads or
 * pack.threads): a worker's start, with its own copy of Node's internals to compile (~0.1 s of
 * CPU), costs more than it saves on a small pack. `index-pack` of small's 15,153 objects took
 * 0.63-0.72 s on one thread against 0.78-0.85 on two; 40,000 objects of `large` 1.78-1.88 against
 * 1.68-1.76, 72,000 2.39-2.85 against 2.05-2.29.
 */
const DEFAULT_THREADS_FROM = 30000;
/** How long the calling thread resolves before it yields to the event loop, in milliseconds. */
const SLICE_MS = 50;
/** The smallest entry: a one-byte header and an empty zlib stream. */
const MIN_ENTRY = 9;
/** Most objects the first pass's id index is made for (32 MiB of slots, whose pages are committed as inserts touch them). */
const EARLY_INDEX_MAX = 1 << 22;

export interface PassOptions {
  /** Names the pack in messages. */
  name: string;
  /** For a stream: where its bytes go, and the file the second pass reads (a path input is read where it is). */
  sink?: PackSink;
  /** Told of the header, each entry and the trailer as they are parsed. */
  observer?: PackObserver;
  /** Total threads resolving deltas, this one included (default: the machine's parallelism). */
  threads?: number;
  fixThin?: boolean;
  /** Runs git's fsck checks and the connectivity check (index-pack --strict). */
  strict?: FsckOptions | null;
  /**
   * With strict, whether to check connectivity too (default true); false checks the objects
   * alone (git's --fsck-objects), for partial packs that point at absent objects.
   */
  connectivity?: boolean;
  /**
   * With the connectivity check: the commits whose parents are absent on purpose, ids back to
   * back (the shallow file a shallow transfer leaves, git's --shallow-file); their parents are
   * not looked for.
   */
  shallow?: Uint8Array | null;
  /** The repository's objects: thin-pack bases, connectivity and collision checks. */
  lookup?: ObjectLookup | null;
  /**
   * With strict: checks the content of a blob that a tree names `.gitmodules` (config/gitmodules.ts's
   * checkGitmodulesBlob, which this layer cannot import). Without it such blobs are not checked.
   */
  gitmodules?: (content: Buffer, options: FsckOptions) => FsckProblem[];
  /** zlib level of appended thin-pack bases (git: core.compression, default 1). */
  compressionLevel?: number;
  maxDepth?: number;
  /**
   * Bytes of reconstructed bases the resolver threads may hold, all together; the first pass's
   * stream resolver holds an eighth as much.
   */
  cacheLimit?: number;
  /** Refuses a pack larger than this many bytes (git's --max-input-size). */
  maxInputSize?: number;
  /** Meters for "Receiving objects" (or "Indexing objects") and "Resolving deltas". */
  progress?: Progress;
  /** Names the first meter instead (git's --progress-title). */
  progressTitle?: string;
  /**
   * Whether the first meter shows (default true); false shows "Resolving deltas" alone, as git's
   * --show-resolving-progress does for receive-pack, whose client shows its own sending.
   */
  receivingProgress?: boolean;
  /** Stops delta resolution promptly (the CLI's SIGINT); the passes then throw. */
  signal?: AbortSignal;
  /**
   * Runs once between the passes, when what the first pass held has just become garbage (its
   * input window and ring, the links' scratch: 6 MiB on an 80k-commit history) and before the
   * second pass needs memory of its own. Those buffers live outside V8's heap, which only a full
   * collection frees, and the heap itself is too small to start one: the CLI runs one here
   * (cli/memory.ts). Process-wide, so the library leaves it to the caller.
   */
  afterFirstPass?: () => void;
}

export interface PassResult {
  table: ObjectTable;
  count: number;
  /** Objects appended by fixThin (they are the last `appended` of `count`). */
  appended: number;
  deltas: number;
  /** Deltas resolved during the first pass (stream-resolve.ts). */
  streamed: number;
  packHash: Buffer;
  /** Where the entries end (and the trailer starts) in the final pack. */
  entriesEnd: number;
  /** Object numbers in id order. */
  sorted: Int32Array;
  /** Bytes of a stream that came after the pack. */
  trailing: Buffer;
  /**
   * With the connectivity check: how many of the objects the pack's commits, trees and tags point
   * to are not in the pack but in the repository (0: the pack is closed under its references).
   */
  outsideReferences: number;
  /** Reconstructs any object of the pack (for checks and tests). */
  objectData(i: number): Buffer;
}

export async function runPasses(input: PackInput, options: PassOptions): Promise<PassResult> {
  const threads = new ResolverThreads();
  try {
    return await passes(input, options, threads);
  } finally {
    await threads.close();
  }
}

async function passes(input: PackInput, options: PassOptions, threads: ResolverThreads): Promise<PassResult> {
  const threadCount = Math.max(1, options.threads ?? os.availableParallelism());
  const threadsFrom = options.threads === undefined ? DEFAULT_THREADS_FROM : THREADS_FROM;
  const name = options.name;
  const fromFile = typeof input === 'string';
  const sink = fromFile ? null : options.sink;
  const packPath = fromFile ? input : sink?.path;
  if (!packPath) throw new GitError('pack', 'usage', `${name}: a pack stream needs a file to be written to`);
  const progress = options.progress;

  // Pass 1.
  const window = new PackWindow();
  let fileSize = -1, fd = -1;
  if (fromFile) {
    fd = fs.openSync(input, 'r');
    fileSize = fs.fstatSync(fd).size;
  }
  let parser!: PackParser;
  let trailing = Buffer.alloc(0);
  let receiving: ProgressMeter | null = null;
  const connectivity = !!options.strict && (options.connectivity ?? true);
  const parentless = connectivity && options.shallow && options.shallow.length > 0 ? sortedIds(options.shallow) : null;
  const cacheLimit = options.cacheLimit ?? DEFAULT_CACHE_LIMIT;
  const maxDepth = Math.min(options.maxDepth ?? DEFAULT_MAX_DEPTH, MAX_DEPTH);
  // The first worker hashes whole objects and resolves deltas while this thread parses
  // (first-pass-ring.ts, stream-resolve.ts), with an id index of its own for --strict's
  // references.
  let streaming: Promise<StreamResult> | null = null;
  let streamSlots: SharedArrayBuffer | null = null;
  let streamIndexCapacity = 0;
  let streamFailed: unknown = null;
  // Workers take tens of milliseconds to start: start them as soon as the pack's header says it
  // is big enough to use them, before its first entry is parsed.
  const onHeader = (count: number): void => {
    if (count >= threadsFrom && threads.size < threadCount - 1) threads.spawn(threadCount - 1);
    if (threads.size > 0) {
      const ring = parser.ring = new FirstPassRingWriter();
      if (fromFile) ring.wrote(fileSize);
      // The header's count is not trusted with memory: an index for more objects than this is
      // only needed by a pack that big, and one that is full is simply not added to.
      const indexCapacity = streamIndexCapacity = connectivity ? Math.min(count, EARLY_INDEX_MAX) : 0;
      streamSlots = indexCapacity ? SharedIdIndex.allocate(indexCapacity) : null;
      streaming = threads.stream({
        ring: ring.buffers, table: table.shared(), name, packPath, maxDepth, strict: options.strict ?? null,
        // An eighth of the second pass's, 4 MiB by default: 16 MiB made history's index-pack
        // peak 14 MiB higher, and no faster.
        cacheLimit: Math.floor(cacheLimit / 8),
        idSlots: streamSlots, indexCapacity, parentless,
      });
      // Awaited after the first pass; until then a failure must not be reported as unhandled,
      // and stops a stream at its next piece (an fsck error found early needs no more of it).
      streaming.catch((e: unknown) => { streamFailed = e; });
    }
  };
  const showReceiving = (): void => {
    if (parser.count < 0) return;
    if (!progress || options.receivingProgress === false) return;
    if (!receiving) {
      // As in git, the throughput starts with the first read after the progress does.
      receiving = progress(options.progressTitle ?? (fromFile ? 'Indexing objects' : 'Receiving objects'), parser.count);
      receiving.update(parser.parsed);
      return;
    }
    receiving.update(parser.parsed, fromFile ? undefined : window.end);
  };
  const tooLarge = (): GitError => new GitError('pack', 'too-large', `${name}: pack exceeds maximum allowed size (${options.maxInputSize} bytes)`);
  // A file bounds how many objects it can hold, whatever its header claims.
  const table = new ObjectTable(fromFile ? Math.floor(fileSize / MIN_ENTRY) : MAX_ROWS);
  parser = new PackParser(window, table, { name, observer: options.observer, onHeader, ...(sink ? { onData: (bytes) => sink.write(bytes) } : {}) });
  try {
    if (fromFile) {
      if (options.maxInputSize && fileSize > options.maxInputSize) throw tooLarge();
      let eof = false;
      for (;;) {
        const want = parser.step(eof);
        showReceiving();
        if (want === 0) break;
        // step() only asks for more than the window holds, so each round reads or reaches EOF.
        do {
          const len = Math.max(FILE_CHUNK, want - window.end);
          const at = window.reserve(len, parser.keep);
          const n = fs.readSync(fd, window.bytes, at, len, null);
          if (n === 0) { eof = true; break; }
          window.end += n;
        } while (window.end < want);
      }
      if (window.end > parser.end || fs.readSync(fd, Buffer.alloc(1), 0, 1, null) > 0) {
        throw new CorruptError('pack', `${name}: pack has junk at the end (after the trailer at offset ${parser.end - OID_BYTES})`);
      }
    } else {
      await feedStream(input as AsyncIterable<Uint8Array>, window, parser, () => {
        if (options.maxInputSize && window.end > options.maxInputSize && !parser.done) throw tooLarge();
        if (streamFailed) throw streamFailed;
      }, showReceiving);
      if (!parser.done) {
        parser.step(true);
        showReceiving();
      }
      trailing = Buffer.from(window.bytes.subarray(parser.end - window.start, window.end - window.start));
    }
  } finally {
    if (fd >= 0) fs.closeSync(fd);
    parser.ring?.close();
  }
  (receiving as ProgressMeter | null)?.stop();
  window.release();
  // The ids of whole objects and what was resolved: the links and the id index below need them.
  const streamed = streaming ? await (streaming as Promise<StreamResult>) : null;
  // Its thread ends with what it held (its rings, its heap: 13 MiB on history), and one starts
  // afresh below if the second pass has tasks for it.
  const workers = threads.size;
  if (streaming) await threads.endFirst();
  // Let the ring's shared memory go before pass 2 needs memory of its own.
  parser.ring = null;
  const parsedCount = parser.count;

  // Pass 2.
  const links = linkDeltas(table, parsedCount, parser, !!options.strict);
  options.afterFirstPass?.();
  // --strict checks references in an id index: every object resolved so far goes in now (the
  // first pass's index is kept if it is big enough), each delta when resolved.
  let idSlots = SharedIdIndex.allocate(connectivity ? parsedCount + parser.refCount : 0);
  const early = streamSlots as SharedArrayBuffer | null;
  // The stream resolver put in what it took, in pack order, up to its capacity.
  let streamedIn = false;
  if (early && early.byteLength >= idSlots.byteLength) {
    idSlots = early;
    streamedIn = parsedCount <= streamIndexCapacity;
  }
  streamSlots = null;
  const index = new SharedIdIndex(new Int32Array(idSlots), table.ids);
  if (connectivity) {
    for (let i = 0; i < parsedCount; i++) {
      const streamedObject = table.state[i] === STREAMED;
      if ((streamedObject && !streamedIn) || (!streamedObject && !table.isDelta(i))) index.insert(i);
    }
  }
  const control = new Int32Array(new SharedArrayBuffer(16));
  // Progress counts on from what the first pass resolved.
  control[RESOLVED] = streamed?.resolved ?? 0;
  const useWorkers = workers > 0 && links.taskCount > 1;
  if (useWorkers) threads.spawn(workers);
  const resolvers = useWorkers ? workers + 1 : 1;
  const shared: ResolveShared = {
    ...links, name, packPath, table: table.shared(), count: parsedCount, idSlots, control: control.buffer as SharedArrayBuffer,
    maxDepth,
    cacheLimit: Math.floor(cacheLimit / resolvers),
    strict: options.strict ?? null, connectivity, parentless,
  };
  const deltas = parser.ofsCount + parser.refCount;
  const resolving = progress && deltas > 0 ? progress('Resolving deltas', deltas) : null;
  const showResolving = (): void => { resolving?.update(Atomics.load(control, RESOLVED)); };
  const lists: ReferenceList[] = streamed?.refs ? [streamed.refs] : [];
  const workersDone = useWorkers ? threads.start(shared) : Promise.resolve([] as ReferenceList[]);
  // Keep a rejected promise from being reported as unhandled while this thread is busy.
  workersDone.catch(() => {});
  const main = new Resolver(shared, showResolving);
  // An abort stops every resolver at its next progress flush.
  const abort = (): void => { Atomics.store(control, ABORT, 1); };
  options.signal?.addEventListener('abort', abort);
  if (options.signal?.aborted) abort();
  try {
    // This thread resolves in slices and yields in between, so that signals, the abort above and
    // the caller's timers are served while it works.
    while (!main.run(Date.now() + SLICE_MS)) await new Promise((resolve) => setImmediate(resolve));
  } catch (e) {
    abort();
    await workersDone.catch(() => {});
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
  const timer = resolving ? setInterval(showResolving, 250) : null;
  try {
    lists.push(...await workersDone);
  } finally {
    if (timer) clearInterval(timer);
  }
  // Their heaps are not needed any more: give them back before the index is sorted and written.
  await threads.close();
  if (options.signal?.aborted) throw new GitError('pack', 'interrupted', `${name}: interrupted while resolving deltas`);
  if (main.checker) lists.push(main.checker.references());

  // Pass 3.
  let appended = 0;
  let packHash = parser.packHash!;
  let entriesEnd = parser.pos;
  if (options.fixThin && Atomics.load(control, RESOLVED) < deltas) {
    if (!sink) throw new GitError('pack', 'usage', `${name}: --fix-thin needs a pack stream it may append to`);
    const thin = appendThinBases({
      table, parser, shared, lookup: options.lookup ?? null, name, packPath,
      level: options.compressionLevel ?? 1, onProgress: showResolving, writeAt: (bytes, offset) => sink.writeAt(bytes, offset),
    });
    appended = thin.appended;
    if (appended) {
      packHash = thin.packHash;
      entriesEnd = thin.entriesEnd;
    }
    if (thin.checker) lists.push(thin.checker.references());
  }
  const count = parsedCount + appended;
  const resolved = Atomics.load(control, RESOLVED);
  if (resolved < deltas) throw unresolvedError(table, count, parser, name, deltas - resolved);
  if (resolving) {
    resolving.update(resolved);
    resolving.stop(appended ? `completed with ${appended} local object${appended === 1 ? '' : 's'}` : 'done');
  }

  const sorted = sortByOid(table.ids, count);
  let outsideReferences = 0;
  if (connectivity) {
    index.rebind(table.ids);
    outsideReferences = checkConnectivity(lists, table, index, options.lookup ?? null, name);
  }
  const whole: ResolveShared = { ...shared, table: table.shared(), count };
  const reader = new Resolver(whole);
  // The .gitmodules blobs are few: each is rebuilt through its chain, the reader kept open for all.
  if (options.strict && options.gitmodules) {
    try {
      checkGitmodules(lists, { table, sorted, count, objectData: (i) => reader.objectData(i), lookup: options.lookup ?? null, name, connectivity },
        options.strict, options.gitmodules);
    } finally {
      reader.close();
    }
  }
  if (options.lookup) checkCollisions({ ...whole, cacheLimit }, parsedCount, options.lookup);
  // Callers ask for an object now and then: nothing stays open between their calls.
  const objectData = (i: number): Buffer => {
    try {
      return reader.objectData(i);
    } finally {
      reader.close();
    }
  };
  return {
    table, count, appended, deltas, streamed: streamed?.resolved ?? 0, packHash, entriesEnd, sorted, trailing,
    outsideReferences, objectData,
  };
}

/** git's core.bigFileThreshold: a .gitmodules larger than this is refused unread (gitmodulesLarge). */
const GITMODULES_MAX = 512 << 20;

/**
 * git's fsck_finish: every object a tree names `.gitmodules` must be a blob that passes the
 * gitmodules checks, whether it came in the pack or was already in the repository.
 */
function checkGitmodules(lists: readonly ReferenceList[], at: {
  table: ObjectTable; sorted: Int32Array; count: number; objectData: (i: number) => Buffer; lookup: ObjectLookup | null;
  name: string; connectivity: boolean;
}, fsck: FsckOptions, check: (content: Buffer, options: FsckOptions) => FsckProblem[]): void {
  const seen = new Set<string>();
  for (const list of lists) {
    for (let off = 0; off < list.gitmodules.length; off += OID_BYTES) {
      const hex = toHex(list.gitmodules, off);
      if (seen.has(hex) || fsck.skip?.has(hex)) continue;
      seen.add(hex);
      const fail = (id: string, message: string): never => {
        throw new CorruptError('pack', `${at.name}: fsck error in object ${hex} (.gitmodules): ${id}: ${message}`);
      };
      const i = findSorted(at.table.ids, at.sorted, at.count, list.gitmodules, off);
      let type: number, size: number;
      if (i >= 0) {
        type = at.table.realType[i]!;
        size = at.table.size[i]!;
      } else {
        const info = at.lookup?.info(list.gitmodules, off) ?? null;
        if (!info) {
          // Without the connectivity check (shallow, partial) an absent object is expected.
          if (at.connectivity) fail('gitmodulesMissing', 'unable to read .gitmodules blob');
          continue;
        }
        type = info.type;
        size = info.size;
      }
      if (type !== OBJ_BLOB) fail('gitmodulesBlob', `non-blob found at .gitmodules (a ${typeName(type)})`);
      if (size > GITMODULES_MAX) fail('gitmodulesLarge', '.gitmodules too large to parse');
      const content = i >= 0 ? at.objectData(i) : at.lookup!.read(list.gitmodules, off)!.data;
      for (const p of check(content, fsck)) if (p.severity === 'error') fail(p.id, p.message);
    }
  }
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
