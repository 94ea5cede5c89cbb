// The pack of a push, into the quarantine: git's unpack(), which runs index-pack --stdin --strict
// --fix-thin --keep (or, for fewer than receive.unpackLimit objects, unpack-objects --strict,
// which writes loose objects). Both are the same passes here (pack/index-pack): the stream is
// parsed as it arrives, every object fsck'd, a thin pack completed from the repository, every
// reference checked to exist. A small pack then becomes loose objects and its file goes; a large
// one is kept, with its .idx and a .keep (removed once the refs point at it, so that a gc running
// meanwhile cannot drop its objects). What git reports as the unpack status when this fails is
// the `status` of the UnpackError thrown.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { Inflater } from '../../core/zlib.js';
import type { Progress } from '../../core/progress.js';
import { writeExactly } from '../../core/write-exactly.js';
import type { FsckOptions, FsckProblem } from '../../object/fsck.js';
import type { ObjectTypeCode } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { LooseObjects } from '../../odb/loose.js';
import { BIG_OBJECT, inflateEntry } from '../../pack/inflate-entry.js';
import { PackFile } from '../../pack/pack-file.js';
import { indexPack } from '../../packing/index-pack/index.js';
import { runPasses, type PassOptions, type PassResult } from '../../packing/index-pack/passes.js';
import { findSorted } from '../../packing/index-pack/sort.js';
import type { Quarantine } from './quarantine.js';

export interface UnpackOptions {
  /** null: no fsck (receive.fsckObjects=false); connectivity is then the walk's job alone. */
  fsck: FsckOptions | null;
  gitmodules: (content: Buffer, options: FsckOptions) => FsckProblem[];
  /** Bytes; 0 is unlimited. */
  maxInputSize: number;
  /** Objects the pack header may announce; 0 is unlimited. */
  maxObjects: number;
  unpackLimit: number;
  /** zlib's level for loose objects (core.loosecompression; git's default 1). */
  looseCompression?: number;
  keepMessage: string;
  /** "Resolving deltas" to the client, or nothing. */
  progress?: Progress;
  threads?: number;
  signal?: AbortSignal;
  /** Called once the whole pack has been read (the client now waits: keep-alives may start). */
  onInputEnd?: () => void;
  /**
   * The pack may stop at the pusher's shallow boundary (commits this repository lacks): index-pack
   * then leaves connectivity to the per-ref check, which refuses what needs that boundary.
   */
  open?: boolean;
}

export interface Unpacked {
  objects: number;
  /** From the connectivity check of the passes (see PassResult.outsideReferences); -1 without it. */
  outsideReferences: number;
  /** Which of the ids asked about are in the pack. */
  inPack: boolean[];
  /** The .keep's name, once migrated (objects/pack/pack-<hash>.keep), or null for loose objects. */
  keepName: string | null;
}

/** A failed unpack: `status` is the text of "unpack <status>", the message says why. */
export class UnpackError extends GitError {
  constructor(readonly status: string, message: string, options?: { cause?: unknown }) {
    super('server', 'unpack-failed', message, options);
  }
}

const PACK_HEADER = 12;

export async function unpack(input: AsyncIterable<Uint8Array>, quarantine: Quarantine, odb: ObjectStore,
  tips: readonly Uint8Array[], options: UnpackOptions): Promise<Unpacked> {
  const { header, stream } = await readHeader(input, options.onInputEnd);
  const count = header.readUInt32BE(8);
  if (options.maxObjects > 0 && count > options.maxObjects) {
    throw new UnpackError('index-pack abnormal exit', `pack has ${count} objects, more than the ${options.maxObjects} this server accepts`);
  }
  const loose = count < options.unpackLimit;
  const passOptions: Omit<PassOptions, 'name' | 'sink'> = {
    fixThin: true,
    strict: options.fsck,
    connectivity: !options.open,
    gitmodules: options.gitmodules,
    lookup: odb,
    maxInputSize: options.maxInputSize || undefined,
    threads: options.threads,
    signal: options.signal,
    // As git's receive-pack: the pusher sees its own sending, and from here only the resolving.
    ...(options.progress && !loose ? { progress: options.progress, receivingProgress: false } : {}),
  };
  try {
    if (loose) return await unpackLoose(stream, quarantine, tips, passOptions, options.looseCompression);
    // The store index-pack writes into: the quarantine, with the repository's objects to look at.
    const store = {
      objectsDir: quarantine.dir,
      read: (id: Uint8Array, off?: number) => odb.read(id, off),
      readInPieces: (id: Uint8Array, off: number, sink: (piece: Uint8Array) => void) => odb.readInPieces(id, off, sink),
      info: (id: Uint8Array, off?: number) => odb.info(id, off),
      hasKnown: (id: Uint8Array, off?: number) => odb.hasKnown(id, off),
      isEmpty: () => odb.isEmpty(),
    };
    const result = await indexPack(store, stream, { ...passOptions, keep: options.keepMessage });
    return {
      objects: result.objects, outsideReferences: options.fsck && passOptions.connectivity ? result.passes.outsideReferences : -1,
      inPack: tips.map((id) => findInPass(result.passes, id)), keepName: result.keepPath && path.basename(result.keepPath),
    };
  } catch (e) {
    if (e instanceof GitError) throw new UnpackError(loose ? 'unpack-objects abnormal exit' : 'index-pack abnormal exit', e.message, { cause: e });
    throw e;
  }
}

/** git's unpack-objects: the same checks, then each object written loose (thin-pack bases are not). */
async function unpackLoose(stream: AsyncIterable<Uint8Array>, quarantine: Quarantine, tips: readonly Uint8Array[],
  passOptions: Omit<PassOptions, 'name' | 'sink'>, level?: number): Promise<Unpacked> {
  const tmp = path.join(quarantine.dir, 'pack', `tmp_pack_${crypto.randomBytes(6).toString('hex')}`);
  const fd = fs.openSync(tmp, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    const result = await runPasses(stream, {
      ...passOptions, name: '<stdin>',
      sink: { path: tmp, write: (bytes) => writeExactly(fd, bytes), writeAt: (bytes, offset) => writeExactly(fd, bytes, offset) },
    });
    const inflater = new Inflater();
    const objects = new LooseObjects(quarantine.dir, inflater, level);
    const received = result.count - result.appended;
    const table = result.table;
    // A big whole object goes from the pack to its loose file in pieces, never whole in memory.
    let pack: PackFile | null = null;
    try {
      for (let i = 0; i < received; i++) {
        const type = table.realType[i] as ObjectTypeCode;
        if (table.isDelta(i) || table.size[i]! <= BIG_OBJECT) {
          objects.write(type, result.objectData(i));
          continue;
        }
        const file = pack ??= new PackFile(tmp, null);
        objects.writeStreamed(type, table.size[i]!, (sink) => inflateEntry(file, table.offset[i]!, table.dataOffset(i), table.offset[i + 1]!,
          table.size[i]!, inflater, sink));
      }
    } finally {
      pack?.close();
    }
    return {
      objects: received, outsideReferences: passOptions.strict && passOptions.connectivity ? result.outsideReferences : -1,
      inPack: tips.map((id) => findInPass(result, id)), keepName: null,
    };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
  }
}

/** Whether the pass indexed `id`. */
function findInPass(result: PassResult, id: Uint8Array): boolean {
  return findSorted(result.table.ids, result.sorted, result.count, id, 0) >= 0;
}

/**
 * The pack header, read before anything else is done with the stream (git's parse_pack_header),
 * and the stream from its first byte on.
 */
async function readHeader(input: AsyncIterable<Uint8Array>, onEnd?: () => void): Promise<{ header: Buffer; stream: AsyncIterable<Uint8Array> }> {
  const it = input[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let have = 0;
  while (have < PACK_HEADER) {
    const r = await it.next();
    if (r.done) throw new UnpackError('eof before pack header was fully read', `the pack ended after ${have} bytes, before its 12-byte header`);
    head.push(Buffer.from(r.value.buffer, r.value.byteOffset, r.value.length));
    have += r.value.length;
  }
  const first = Buffer.concat(head);
  if (first.toString('latin1', 0, 4) !== 'PACK') {
    throw new UnpackError('protocol error (pack signature mismatch detected)', `expected a pack, got ${JSON.stringify(first.toString('latin1', 0, 4))}`);
  }
  const version = first.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new UnpackError('protocol error (pack version unsupported)', `pack version ${version} is not supported`);
  // index-pack stops reading where the pack ends: that is when this generator is closed.
  async function* stream(): AsyncGenerator<Uint8Array> {
    try {
      yield first;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    } finally {
      onEnd?.();
    }
  }
  return { header: first.subarray(0, PACK_HEADER), stream: stream() };
}
