// tsgit verify-pack [-v] [-s] <pack>.idx...: re-index each pack and check that the result is its
// .idx, printing what git prints: with -v one line per object in pack order
// ("<id> <type> <size> <size-in-pack> <offset> [<depth> <base-id>]"), the chain-length histogram
// and "<pack>: ok"; with -s only the histogram.
import { GitError, UsageError } from '../../core/errors.js';
import { unknownOption } from '../parse-options.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { typeName } from '../../object/type.js';
import { verifyPack, type PassResult } from '../../packing/index-pack/index.js';
import type { CommandContext } from '../context.js';
import { Output, writeAll } from '../output.js';
import path from 'node:path';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Validate packed Git archive files',
  synopsis: ['[-v | --verbose] [-s | --stat-only] [--] <pack>.idx...'],
  options: [
    ['-v, --verbose', 'verbose'],
    ['-s, --stat-only', 'show statistics only'],
  ],
};

export default async function verifyPackCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let verbose = false, statOnly = false;
  const packs: string[] = [];
  for (const a of args) {
    if (a === '-v' || a === '--verbose') verbose = true;
    else if (a === '-s' || a === '--stat-only') statOnly = true;
    else if (a.startsWith('-')) throw unknownOption(a);
    else packs.push(a);
  }
  if (!packs.length) throw new UsageError('');
  let failed = false;
  for (const p of packs) {
    // As git: "foo.idx", "foo.pack" and "foo" all name foo.pack.
    let pack = p.endsWith('.idx') ? p.slice(0, -4) + '.pack' : p;
    if (!pack.endsWith('.pack')) pack += '.pack';
    try {
      const result = await verifyPack(path.resolve(ctx.cwd, pack), {});
      if (verbose || statOnly) printPackStats(result.passes, statOnly);
      if (verbose && !statOnly) writeAll(1, Buffer.from(`${pack}: ok\n`));
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      writeAll(2, Buffer.from(`fatal: ${e.message}\n`));
      if (verbose || statOnly) writeAll(1, Buffer.from(`${pack}: bad\n`));
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

/** git's show_pack_info: per-object lines (unless statOnly), then the delta chain histogram. */
export function printPackStats(result: PassResult, statOnly: boolean): void {
  const t = result.table;
  const out = new Output();
  let deepest = 0;
  for (let i = 0; i < result.count; i++) if (t.depth[i]! > deepest) deepest = t.depth[i]!;
  const histogram = new Array<number>(deepest).fill(0);
  let nonDelta = 0;
  for (let i = 0; i < result.count; i++) {
    const delta = t.isDelta(i);
    if (delta) histogram[t.depth[i]! - 1]!++;
    else nonDelta++;
    if (statOnly) continue;
    let line = `${toHex(t.ids, i * OID_BYTES)} ${typeName(t.realType[i]!).padEnd(6)} ${t.size[i]} ${t.packedLength(i)} ${t.offset[i]}`;
    if (delta) line += ` ${t.depth[i]} ${toHex(t.ids, t.base[i]! * OID_BYTES)}`;
    out.ascii(line + '\n');
  }
  if (nonDelta) out.ascii(`non delta: ${nonDelta} object${nonDelta === 1 ? '' : 's'}\n`);
  for (let d = 0; d < deepest; d++) {
    const n = histogram[d]!;
    if (n) out.ascii(`chain length = ${d + 1}: ${n} object${n === 1 ? '' : 's'}\n`);
  }
  out.flush();
}
