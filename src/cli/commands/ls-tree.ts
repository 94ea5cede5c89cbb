// tsgit ls-tree [-r] [-t] [-d] [-z] [--name-only] <tree-ish>: git's listing, with its path quoting.
import { UsageError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { formatMode, TreeCursor } from '../../object/tree.js';
import { OBJ_TREE } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { fatal, type CommandContext } from '../context.js';
import { Output } from '../output.js';
import { quoteCStyle } from '../quote.js';
import type { CommandHelp } from '../help.js';

interface Options { recursive: boolean; showTrees: boolean; onlyTrees: boolean; nameOnly: boolean; nul: boolean; quotePath: boolean }

export const help: CommandHelp = {
  summary: 'List the contents of a tree object',
  synopsis: ['[-r] [-t] [-d] [-z] [--name-only] <tree-ish>'],
  options: [
    ['-d', 'only show trees'],
    ['-r', 'recurse into subtrees'],
    ['-t', 'show trees when recursing'],
    ['-z', 'terminate entries with NUL byte'],
    ['--name-only', 'list only filenames'],
    ['--name-status', 'list only filenames'],
  ],
};

export default function lsTree(ctx: CommandContext, args: string[]): number {
  const opts: Options = { recursive: false, showTrees: false, onlyTrees: false, nameOnly: false, nul: false, quotePath: true };
  const rest: string[] = [];
  for (const a of args) {
    if (a === '-r') opts.recursive = true;
    else if (a === '-t') opts.showTrees = true;
    else if (a === '-d') opts.onlyTrees = true;
    else if (a === '-z') opts.nul = true;
    else if (a === '--name-only' || a === '--name-status') opts.nameOnly = true;
    else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else rest.push(a);
  }
  if (rest.length !== 1) throw new UsageError('');
  const repo = ctx.repository();
  opts.quotePath = repo.config.getBool('core', null, 'quotepath') ?? true;
  const revs = repo.revs();
  const id = revs.tryResolve(rest[0]!);
  if (!id) throw fatal(`Not a valid object name ${rest[0]}`);
  const tree = revs.peel(id, OBJ_TREE, rest[0]!);
  const out = new Output();
  list(repo.odb, tree, Buffer.alloc(0), opts, out);
  out.flush();
  return 0;
}

function list(odb: ObjectStore, tree: Uint8Array, prefix: Buffer, opts: Options, out: Output): void {
  const data = odb.mustRead(tree, 0, OBJ_TREE).data;
  const cur = new TreeCursor(data, 0, data.length, `tree ${toHex(tree)}`);
  while (cur.next()) {
    const isTree = cur.isTree();
    const name = data.subarray(cur.nameStart, cur.nameEnd);
    const path = prefix.length ? Buffer.concat([prefix, name]) : name;
    const recurse = isTree && opts.recursive;
    const show = opts.onlyTrees ? isTree : !recurse || opts.showTrees;
    if (show) {
      if (!opts.nameOnly) {
        const type = isTree ? 'tree' : cur.isGitlink() ? 'commit' : 'blob';
        out.ascii(`${formatMode(cur.mode)} ${type} ${toHex(data, cur.oidOffset)}\t`);
      }
      out.bytes(opts.nul ? path : quoteCStyle(path, opts.quotePath));
      out.byte(opts.nul ? 0 : 0x0a);
    }
    if (recurse) {
      const child = data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
      list(odb, child, Buffer.concat([path, Buffer.from('/')]), opts, out);
    }
  }
}
