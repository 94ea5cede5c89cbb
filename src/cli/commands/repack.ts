// tsgit repack -a [-d] [-b] [-q]: every reachable object into one new pack (see
// src/packing/repack/repack.ts). Progress is git's, on stderr, shown when stderr is a terminal or with
// --progress. As in git, a bare repository writes a bitmap with -a unless repack.writeBitmaps (or
// pack.writeBitmaps) says otherwise. Incremental repacking (no -a) is not supported.
import { unknownOption } from '../parse-options.js';
import { repack } from '../../packing/repack/index.js';
import { PER_WORKTREE_REF_DIRS } from '../../core/common-dir.js';
import { otherWorktreeRefs } from '../../repository/linked-worktrees.js';
import { fatal, type CommandContext } from '../context.js';
import { writeAll } from '../output.js';
import { progressIf, progressWanted } from '../progress.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Pack the objects of a repository into one pack',
  synopsis: ['-a [-d] [-b | --write-bitmap-index] [-q | --quiet] [--progress]'],
  options: [
    ['-a', 'pack everything in a single pack'],
    ['-d', 'remove redundant packs and loose objects'],
    ['-b, --[no-]write-bitmap-index', 'write bitmap index'],
    ['-q, --quiet', 'be quiet'],
    ['--[no-]progress', 'show progress'],
  ],
};

export default async function repackCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let all = false, del = false, quiet = false, progress = false;
  let bitmap: boolean | undefined;
  for (const a of args) {
    if (a === '--write-bitmap-index') bitmap = true;
    else if (a === '--no-write-bitmap-index') bitmap = false;
    else if (a === '--quiet') quiet = true;
    else if (a === '--progress') progress = true;
    else if (a === '--no-progress') quiet = true;
    else if (/^-[adbq]+$/.test(a)) {
      // Bundled short options, as git's parse-options takes them (-adb).
      for (const c of a.slice(1)) {
        if (c === 'a') all = true;
        else if (c === 'd') del = true;
        else if (c === 'b') bitmap = true;
        else if (c === 'q') quiet = true;
      }
    } else {
      // git names the first letter of a bundle it cannot take ("-az": `z').
      throw unknownOption(/^-[^-]/.test(a) ? `-${[...a.slice(1)].find((c) => !'adbq'.includes(c))}` : a);
    }
  }
  const repo = ctx.repository();
  if (del && repo.format.preciousObjects) throw fatal('cannot delete packs in a precious-objects repo');
  const config = repo.config;
  if (!all) {
    if (bitmap) throw fatal('incremental repack is not compatible with bitmap indexes');
    throw fatal('only "repack -a" is supported: incremental repacking of loose objects is not implemented');
  }
  bitmap ??= config.getBool('repack', null, 'writebitmaps') ?? config.getBool('pack', null, 'writebitmaps') ?? repo.workTree === null;
  const showProgress = progressWanted({ quiet, progress });
  const threads = config.getInt('pack', null, 'threads') || undefined;
  // Every work tree's HEAD, own refs and reflogs keep their objects, wherever this runs (git
  // keeps the other work trees' HEADs and reflogs; their own refs are kept too, to lose nothing).
  const others = otherWorktreeRefs(repo.commonDir, repo.gitDir);
  const extraTips: string[] = [];
  for (const refs of others) {
    const head = refs.resolve('HEAD');
    if (head) extraTips.push(head.oid);
    for (const dir of PER_WORKTREE_REF_DIRS) extraTips.push(...refs.list(dir).map((r) => r.oid));
  }
  const result = await repack(repo.odb, repo.refs, {
    reflogsOf: [repo.gitDir, ...others.map((refs) => refs.gitDir)],
    extraTips,
    deleteRedundant: del,
    bitmap,
    bitmapHashCache: config.getBool('pack', null, 'writebitmaphashcache') ?? true,
    bitmapLookupTable: config.getBool('pack', null, 'writebitmaplookuptable') ?? false,
    packKeptObjects: config.getBool('repack', null, 'packkeptobjects'),
    compression: config.getInt('pack', null, 'compression') ?? config.getInt('core', null, 'compression'),
    threads,
    progress: progressIf(showProgress),
    warn: (text) => process.stderr.write(text),
  });
  if (result.packHash === null) {
    if (!quiet) writeAll(1, Buffer.from('Nothing new to pack.\n'));
  } else if (showProgress) {
    writeAll(2, Buffer.from(`Total ${result.objects} (delta ${result.deltas}), reused ${result.reused} (delta ${result.reusedDeltas}), pack-reused 0\n`));
  }
  return 0;
}
