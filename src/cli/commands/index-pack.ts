// tsgit index-pack: git's flags and output. Without --stdin it indexes <pack-file> where it is and
// prints its checksum; with --stdin it receives a pack into the repository (or <pack-file>) and
// prints "pack\t<hash>" ("keep\t<hash>" when it created the .keep), then any input that followed
// the pack. Progress is git's, on stderr, shown with -v/--progress or when stderr is a terminal.
import fs from 'node:fs';
import path from 'node:path';
import { checkGitmodulesBlob } from '../../config/gitmodules.js';
import { GitError, UsageError } from '../../core/errors.js';
import type { Repository } from '../../repository/repository.js';
import { indexPack, verifyPack } from '../../packing/index-pack/index.js';
import { fatal, type CommandContext } from '../context.js';
import { collectGarbage } from '../memory.js';
import { writeAll } from '../output.js';
import { progressIf, progressWanted } from '../progress.js';
import { printPackStats } from './verify-pack.js';
import { looseCompression } from '../../config/loose-compression.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Build pack index file for an existing packed archive',
  synopsis: ['[-v] [-o <index-file>] [--keep | --keep=<msg>] [--[no-]rev-index] [--verify] [--strict | --fsck-objects] [--threads=<n>] <pack-file>', '--stdin [--fix-thin] [--keep | --keep=<msg>] [-v] [-o <index-file>] [--strict | --fsck-objects] [--threads=<n>] [<pack-file>]'],
  options: [
    ['-v', 'be verbose about what is going on, including progress status'],
    ['-o <index-file>', 'write the generated pack index into the specified file'],
    ['--stdin', 'read the pack from standard input and copy it to <pack-file> or into the repository'],
    ['--fix-thin', 'complete a thin pack with the bases it refers to'],
    ['--keep[=<msg>]', 'create a .keep file before the pack is moved into place'],
    ['--[no-]rev-index', 'write (or not) the reverse index (.rev)'],
    ['--verify', 'check that the pack matches its existing index'],
    ['--verify-stat[-only]', 'with --verify, show the delta chain histogram'],
    ['--strict', 'die on broken objects or links (fsck every object, check connectivity)'],
    ['--fsck-objects', 'die on broken objects, without the connectivity check'],
    ['--threads=<n>', 'resolve deltas on <n> threads'],
    ['--index-version=<v>[,<off>]', 'write an index of this version'],
    ['--max-input-size=<n>', 'die if the pack is larger than <n> bytes'],
    ['--progress-title <title>', 'the title of the progress meter'],
    ['-q, --[no-]progress', 'show (or not) progress'],
  ],
};

export default async function indexPackCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let stdin = false, fixThin = false, strict = false, fsckObjects = false, verbose = false, quiet = false, progress = false;
  let verify = false, stat = false, statOnly = false, showResolving = false;
  let keep: string | null = null;
  let indexPath: string | undefined;
  let packName: string | undefined;
  let threads: number | undefined;
  let indexVersion: number | undefined, off32Limit: number | undefined;
  let revIndex: boolean | undefined;
  let maxInputSize: number | undefined;
  let title: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) {
      if (packName !== undefined) throw new UsageError('');
      packName = a;
    } else if (a === '--stdin') stdin = true;
    else if (a === '--fix-thin') fixThin = true;
    else if (a === '--strict' || a.startsWith('--strict=')) strict = true;
    else if (a === '--fsck-objects' || a.startsWith('--fsck-objects=')) fsckObjects = true;
    else if (a === '-v') verbose = true;
    else if (a === '-q' || a === '--no-progress') quiet = true;
    else if (a === '--progress') progress = true;
    else if (a === '--verify') verify = true;
    else if (a === '--verify-stat') { verify = true; stat = true; }
    else if (a === '--verify-stat-only') { verify = true; stat = true; statOnly = true; }
    else if (a === '--keep') keep = '';
    else if (a.startsWith('--keep=')) keep = a.slice(7);
    else if (a === '--rev-index') revIndex = true;
    else if (a === '--no-rev-index') revIndex = false;
    else if (a === '--show-resolving-progress') showResolving = true;
    else if (a === '--progress-title') {
      if (title !== undefined || i + 1 >= args.length) throw new UsageError('');
      title = args[++i]!;
    } else if (a === '-o') {
      if (indexPath !== undefined || i + 1 >= args.length) throw new UsageError('');
      indexPath = args[++i]!;
    } else if (a === '--threads' || a.startsWith('--threads=')) {
      const v = a === '--threads' ? args[++i] : a.slice(10);
      if (v === undefined || !/^\d+$/.test(v)) throw new UsageError('');
      threads = Number(v);
    } else if (a.startsWith('--index-version=')) {
      const m = /^(\d+)(?:,(0x[0-9a-fA-F]+|0[0-7]*|[1-9]\d*))?$/.exec(a.slice(16));
      if (!m || Number(m[1]) > 2) throw fatal(`bad ${a}`);
      indexVersion = Number(m[1]);
      if (m[2] !== undefined) {
        off32Limit = m[2].startsWith('0x') ? parseInt(m[2], 16) : m[2].length > 1 && m[2].startsWith('0') ? parseInt(m[2], 8) : Number(m[2]);
        if (off32Limit >= 0x80000000) throw fatal(`bad ${a}`);
      }
    } else if (a.startsWith('--max-input-size=')) {
      maxInputSize = Number(a.slice(17));
    } else {
      throw new UsageError(`unknown option '${a}'`);
    }
  }
  if (!packName && !stdin) throw new UsageError('');
  if (fixThin && !stdin) throw fatal(`the option '--fix-thin' requires '--stdin'`);

  let repo: Repository | null = null;
  try {
    repo = ctx.repository();
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
  }
  if (stdin && !repo) throw fatal('--stdin requires a git repository');
  const config = repo?.config;
  if (indexVersion === undefined) {
    const v = config?.getInt('pack', null, 'indexversion');
    if (v !== undefined && (v < 0 || v > 2)) throw fatal(`bad pack.indexVersion=${v}`);
    indexVersion = v;
  }
  if (threads === undefined || threads === 0) threads = config?.getInt('pack', null, 'threads') || undefined;
  if (revIndex === undefined) {
    revIndex = isTrue(ctx.env.GIT_TEST_WRITE_REV_INDEX) || (config?.getBool('pack', null, 'writereverseindex') ?? false);
  }
  const level = looseCompression(config);
  const resolvePath = (p: string) => path.resolve(ctx.cwd, p);
  if (packName) packName = resolvePath(packName);
  if (indexPath) indexPath = resolvePath(indexPath);

  const showProgress = progressWanted({ quiet, verbose, progress });
  if (verify) {
    if (!packName) throw fatal('--verify with no packfile name given');
    const result = await verifyPack(packName, { indexPath, threads, revIndex });
    if (stat) printPackStats(result.passes, statOnly);
    return 0;
  }
  const result = await indexPack(repo ? repo.odb : null, stdin ? stdinChunks() : packName!, {
    packPath: stdin ? packName : undefined, indexPath, keep, fixThin, threads, indexVersion, off32Limit, revIndex,
    maxInputSize, compressionLevel: level,
    strict: strict || fsckObjects ? { strict: true } : null,
    gitmodules: checkGitmodulesBlob,
    connectivity: strict,
    progress: progressIf(showProgress || showResolving), receivingProgress: showProgress, progressTitle: title,
    afterFirstPass: collectGarbage,
  });
  if (!stdin) {
    writeAll(1, Buffer.from(`${result.packHash}\n`));
  } else {
    writeAll(1, Buffer.from(`${result.keepCreated ? 'keep' : 'pack'}\t${result.packHash}\n`));
    if (result.trailing.length) writeAll(1, result.trailing);
  }
  return 0;
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v);
}

/**
 * stdin in large chunks, whether it is a pipe or a file, all read into one buffer: index-pack
 * copies each chunk into its window before it asks for the next (feedStream). A stream's chunk of
 * its own each time left hundreds of dead megabytes to the collector, which frees memory outside
 * the heap only when it runs: 13 MiB more peak memory than indexing the same pack from its file.
 */
async function* stdinChunks(): AsyncGenerator<Uint8Array> {
  const buf = Buffer.allocUnsafe(1 << 20);
  for (;;) {
    const n = await new Promise<number>((resolve, reject) => {
      fs.read(0, buf, 0, buf.length, null, (err, bytes) => (err ? reject(err) : resolve(bytes)));
    });
    if (n === 0) return;
    yield buf.subarray(0, n);
  }
}
