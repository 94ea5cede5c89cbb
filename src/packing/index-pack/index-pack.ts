// index-pack: index a pack file in place, or receive a pack stream into a repository. Everything
// is written under a temporary name in the destination directory and renamed only once the whole
// pack has been verified, so a failure leaves nothing behind; as in git the .keep (if asked for)
// appears before the pack and the .idx last, so a reader that finds an .idx finds a whole pack.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { finalizeObjectFile } from '../../core/finalize-file.js';
import { writeExactly } from '../../core/write-exactly.js';
import { streamIdx } from '../../pack/idx/write.js';
import { writeRev } from '../../pack/reverse-index/write.js';
import type { ObjectLookup } from './connectivity.js';
import type { PackSink } from './observe.js';
import { runPasses, type PackInput, type PassOptions, type PassResult } from './passes.js';

/** Where index-pack writes a received pack (objectsDir/pack), and the objects already there. */
export interface IndexPackTarget extends ObjectLookup {
  readonly objectsDir: string;
}

export interface IndexPackOptions extends Omit<PassOptions, 'name' | 'sink' | 'lookup'> {
  /** For a stream: where the .pack goes (default <objects>/pack/pack-<hash>.pack). */
  packPath?: string;
  /** Where the .idx goes (default: next to the pack). */
  indexPath?: string;
  /** Writes a .keep with this message ('' for an empty one), git's --keep[=<msg>]. */
  keep?: string | null;
  /** 1 or 2, git's pack.indexVersion / --index-version (default 2). */
  indexVersion?: number;
  /** git's --index-version=2,<offset>: offsets above it go to the 64-bit table. */
  off32Limit?: number;
  /** Also writes a .rev (git's pack.writeReverseIndex / --rev-index). */
  revIndex?: boolean;
}

export interface IndexPackResult {
  /** The pack's checksum in hex: its name (pack-<hash>) and what --stdin prints. */
  packHash: string;
  packPath: string;
  indexPath: string;
  revPath: string | null;
  keepPath: string | null;
  /** Whether this call created the .keep (git prints "keep" instead of "pack" then). */
  keepCreated: boolean;
  objects: number;
  deltas: number;
  /** Bases --fix-thin appended from the repository. */
  localObjects: number;
  /** Bytes that followed the pack in a stream (git copies them to stdout). */
  trailing: Buffer;
  passes: PassResult;
}

/**
 * Indexes a pack. `input` is a path (the pack is indexed where it is) or a stream (the pack is
 * written into `objects`' pack directory, or to options.packPath). `objects` supplies --fix-thin
 * bases and the --strict and collision checks; a bare path only says where the pack directory is.
 */
export async function indexPack(objects: IndexPackTarget | string | null, input: PackInput,
  options: IndexPackOptions = {}): Promise<IndexPackResult> {
  const lookup = objects && typeof objects !== 'string' ? objects : null;
  const objectsDir = typeof objects === 'string' ? objects : objects?.objectsDir ?? null;
  const fromFile = typeof input === 'string';
  const cleanup: string[] = [];
  let packFd = -1;
  try {
    let tmpPack: string | null = null;
    let name: string;
    if (fromFile) {
      name = input;
    } else {
      if (options.packPath) {
        if (fs.existsSync(options.packPath)) throw new GitError('pack', 'exists', `unable to create '${options.packPath}': File exists`);
        tmpPack = tempName(path.dirname(options.packPath), 'tmp_pack_');
      } else {
        if (!objectsDir) throw new GitError('pack', 'usage', 'receiving a pack stream needs a repository to put it in');
        tmpPack = tempName(packDirOf(objectsDir), 'tmp_pack_');
      }
      packFd = fs.openSync(tmpPack, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o444);
      cleanup.push(tmpPack);
      name = options.packPath ?? '<stdin>';
    }
    const fd = packFd;
    const sink: PackSink | undefined = tmpPack === null ? undefined : {
      path: tmpPack,
      write: (bytes) => writeExactly(fd, bytes),
      writeAt: (bytes, offset) => writeExactly(fd, bytes, offset),
    };
    const result = await runPasses(input, { ...options, name, lookup, sink });
    const hash = toHex(result.packHash);
    if (fd >= 0) {
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      packFd = -1;
    }

    const packDir = objectsDir ? packDirOf(objectsDir) : null;
    const finalPack = fromFile ? input : options.packPath ?? path.join(packDir!, `pack-${hash}.pack`);
    const indexPath = options.indexPath ?? (fromFile || options.packPath ? derive(finalPack, 'pack', 'idx') : path.join(packDir!, `pack-${hash}.idx`));
    const revPath = options.revIndex
      ? (options.indexPath || fromFile || options.packPath ? derive(indexPath, 'idx', 'rev') : path.join(packDir!, `pack-${hash}.rev`))
      : null;

    const t = result.table;
    const tmpIdx = tempName(path.dirname(indexPath), 'tmp_idx_');
    cleanup.push(tmpIdx);
    writeNew(tmpIdx, (fd) => streamIdx({ count: result.count, ids: t.ids, crcs: t.crc, offsets: t.offset }, result.sorted, result.packHash, {
      version: options.indexVersion, off32Limit: options.off32Limit, strict: !!options.strict,
    }, (chunk) => writeExactly(fd, chunk)));
    let tmpRev: string | null = null;
    if (revPath) {
      tmpRev = tempName(path.dirname(revPath), 'tmp_rev_');
      cleanup.push(tmpRev);
      const rev = writeRev(result.sorted, t.offset, result.packHash);
      writeNew(tmpRev, (fd) => writeExactly(fd, rev));
    }

    let keepPath: string | null = null;
    let keepCreated = false;
    if (options.keep !== undefined && options.keep !== null) {
      keepPath = fromFile || options.packPath ? derive(finalPack, 'pack', 'keep') : path.join(packDir!, `pack-${hash}.keep`);
      keepCreated = writeKeep(keepPath, options.keep);
      if (keepCreated) cleanup.push(keepPath);
    }
    if (tmpPack) {
      if (options.packPath) fs.renameSync(tmpPack, finalPack);
      else finalizeObjectFile(tmpPack, finalPack);
    }
    if (tmpRev) place(tmpRev, revPath!, !options.indexPath && !fromFile && !options.packPath);
    place(tmpIdx, indexPath, !options.indexPath && !fromFile && !options.packPath);
    cleanup.length = 0;
    return {
      packHash: hash, packPath: finalPack, indexPath, revPath, keepPath, keepCreated,
      objects: result.count, deltas: result.deltas, localObjects: result.appended, trailing: result.trailing,
      passes: result,
    };
  } finally {
    if (packFd >= 0) fs.closeSync(packFd);
    for (const f of cleanup) fs.rmSync(f, { force: true });
  }
}

function packDirOf(objectsDir: string): string {
  const dir = path.join(objectsDir, 'pack');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** git's derive_filename: "<name>.<strip>" becomes "<name>.<suffix>". */
export function derive(file: string, strip: string, suffix: string): string {
  if (!file.endsWith(`.${strip}`) || file.length === strip.length + 1) {
    throw new GitError('pack', 'usage', `packfile name '${file}' does not end with '.${strip}'`);
  }
  return file.slice(0, file.length - strip.length) + suffix;
}

function tempName(dir: string, prefix: string): string {
  return path.join(dir, prefix + crypto.randomBytes(6).toString('hex'));
}

/** Creates `file` (which must not exist), fills it through `fill` and syncs it. */
function writeNew(file: string, fill: (fd: number) => void): void {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o444);
  try {
    fill(fd);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates the .keep unless one exists (git's odb_pack_keep); true if this call created it. */
function writeKeep(file: string, message: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new GitError('pack', 'io', `cannot write keep file '${file}': ${(e as Error).message}`, { cause: e });
  }
  try {
    if (message.length) writeExactly(fd, Buffer.from(`${message}\n`, 'utf8'));
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function place(tmp: string, final: string, byHash: boolean): void {
  if (byHash) finalizeObjectFile(tmp, final);
  else fs.renameSync(tmp, final);
}

