// verify-pack / index-pack --verify: index the pack again and insist that the result is, byte for
// byte, the .idx that sits next to it (made with the same version and the same 64-bit offset
// choices, as git's read_idx_option arranges), and the .rev too when asked to check one.
import fs from 'node:fs';
import { CorruptError, GitError } from '../../core/errors.js';
import { anomalousOffsets, writeIdx } from '../../pack/idx/write.js';
import { writeRev } from '../../pack/reverse-index/write.js';
import { derive } from './index-pack.js';
import { runPasses, type PassResult } from './passes.js';

export interface VerifyPackOptions {
  indexPath?: string;
  threads?: number;
  /** Also compare the .rev, if there is one (git does when pack.writeReverseIndex is on). */
  revIndex?: boolean;
  maxDepth?: number;
}

export interface VerifyPackResult {
  packPath: string;
  indexPath: string;
  passes: PassResult;
}

const V2_MAGIC = 0xff744f63;

/** Throws a GitError naming what does not match; returns the analysis for statistics. */
export async function verifyPack(packPath: string, options: VerifyPackOptions = {}): Promise<VerifyPackResult> {
  const indexPath = options.indexPath ?? derive(packPath, 'pack', 'idx');
  let existing: Buffer;
  try {
    existing = fs.readFileSync(indexPath);
  } catch (e) {
    throw new GitError('pack', 'not-found', `Cannot open existing pack idx file for '${packPath}'`, { cause: e });
  }
  if (!fs.existsSync(packPath)) throw new GitError('pack', 'not-found', `Cannot open existing pack file '${packPath}'`);
  const version = existing.length >= 8 && existing.readUInt32BE(0) === V2_MAGIC ? 2 : 1;
  const passes = await runPasses(packPath, { name: packPath, threads: options.threads, maxDepth: options.maxDepth });
  const t = passes.table;
  const idx = writeIdx({ count: passes.count, ids: t.ids, crcs: t.crc, offsets: t.offset }, passes.sorted, passes.packHash, {
    version, anomalies: version === 2 ? anomalousOffsets(existing) : [], strict: true,
  });
  if (!idx.equals(existing)) throw new CorruptError('pack', describeMismatch(indexPath, existing, idx));
  if (options.revIndex) {
    const revPath = derive(indexPath, 'idx', 'rev');
    if (fs.existsSync(revPath)) {
      const rev = writeRev(passes.sorted, t.offset, passes.packHash);
      if (!rev.equals(fs.readFileSync(revPath))) throw new CorruptError('pack', `${revPath}: reverse index does not match the pack`);
    }
  }
  return { packPath, indexPath, passes };
}

function describeMismatch(file: string, theirs: Buffer, ours: Buffer): string {
  if (theirs.length !== ours.length) return `${file}: index file size mismatch (${theirs.length} bytes, the pack needs ${ours.length})`;
  const trailer = theirs.length - 40;
  if (!theirs.subarray(trailer, trailer + 20).equals(ours.subarray(trailer, trailer + 20))) {
    return `${file}: index is for another pack (its pack checksum does not match)`;
  }
  let at = 0;
  while (at < theirs.length && theirs[at] === ours[at]) at++;
  return `${file}: index does not match the pack (first difference at byte ${at})`;
}
