// tsgit cat-file: -t, -s, -e, -p, <type> <object>, and the batch modes (--batch, --batch-check,
// with an optional format, --batch-all-objects, --buffer), printing exactly what git prints.
import { GitError, UsageError } from '../../core/errors.js';
import { unknownOption } from '../parse-options.js';
import { fromHex, OID_BYTES, toHex } from '../../core/oid.js';
import { formatMode, TreeCursor } from '../../object/tree.js';
import { OBJ_TREE, typeCode, typeName } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { fatal, type CommandContext } from '../context.js';
import { LineReader, Output } from '../output.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Provide contents or details of repository objects',
  synopsis: ['(-t | -s | -e | -p | <type>) <object>', '(--batch | --batch-check)[=<format>] [--batch-all-objects] [--buffer] [--unordered]'],
  options: [
    ['-t', 'show object type'],
    ['-s', 'show object size'],
    ['-e', "exit with zero when there's no error"],
    ['-p', "pretty-print object's content"],
    ['--batch[=<format>]', 'show full <object> or <rev> contents for each line of stdin'],
    ['--batch-check[=<format>]', 'show info about objects fed from the standard input'],
    ['--batch-all-objects', 'show all objects with --batch or --batch-check'],
    ['--buffer', 'buffer --batch output'],
    ['--unordered', 'do not order --batch-all-objects output'],
  ],
};

export default function catFile(ctx: CommandContext, args: string[]): number {
  let mode: string | null = null;
  let batch: { contents: boolean; format: string } | null = null;
  let all = false, buffer = false;
  const rest: string[] = [];
  for (const a of args) {
    if (a === '-t' || a === '-s' || a === '-e' || a === '-p') mode = a;
    else if (a === '--batch' || a.startsWith('--batch=')) batch = { contents: true, format: a.slice(8) || DEFAULT_FORMAT };
    else if (a === '--batch-check' || a.startsWith('--batch-check=')) batch = { contents: false, format: a.slice(14) || DEFAULT_FORMAT };
    else if (a === '--batch-all-objects') all = true;
    else if (a === '--buffer') buffer = true;
    else if (a === '--unordered') { /* sorted order is also a valid unordered order */ }
    else if (a.startsWith('-')) throw unknownOption(a);
    else rest.push(a);
  }
  const repo = ctx.repository();
  const odb = repo.odb;
  const out = new Output();
  if (batch) {
    if (rest.length) throw new UsageError('');
    const fmt = compileFormat(batch.format);
    if (all) {
      odb.forEachId((buf, off) => {
        const id = buf.subarray(off, off + OID_BYTES);
        batchOne(odb, out, fmt, batch!.contents, id, toHex(id), '');
      });
    } else {
      const lines = new LineReader();
      const revs = repo.revs();
      for (let line; (line = lines.next()) !== null;) {
        // With %(rest) in the format, the name ends at the first whitespace.
        let name = line, restText = '';
        if (fmt.usesRest) {
          const m = /^(\S*)\s*(.*)$/.exec(line)!;
          name = m[1]!; restText = m[2]!;
        }
        // git's batch: a short name that several objects share is "ambiguous", not "missing".
        let id: Uint8Array | null = null, ambiguous = false;
        try { id = revs.tryResolve(name); } catch (e) { ambiguous = e instanceof GitError && e.code === 'ambiguous'; }
        if (!id || !odb.has(id)) {
          out.text(`${name} ${ambiguous ? 'ambiguous' : 'missing'}\n`);
        } else {
          batchOne(odb, out, fmt, batch.contents, id, toHex(id), restText);
        }
        if (!buffer) out.flush();
      }
    }
    out.flush();
    return 0;
  }
  if (all) throw new UsageError('');
  let wantType: string | null = null;
  if (!mode) {
    if (rest.length !== 2) throw new UsageError('');
    wantType = rest.shift()!;
  }
  if (rest.length !== 1) throw new UsageError('');
  const spec = rest[0]!;
  const revs = repo.revs();
  const id = revs.tryResolve(spec);
  if (!id) {
    if (mode === '-e' && fromHex(spec)) return 1;
    throw fatal(`Not a valid object name ${spec}`);
  }
  if (mode === '-e') return odb.has(id) ? 0 : 1;
  const info = odb.info(id);
  if (!info) throw fatal(mode === '-t' || mode === '-s' ? `git cat-file: could not get object info` : `Not a valid object name ${spec}`);
  if (mode === '-t') out.ascii(`${typeName(info.type)}\n`);
  else if (mode === '-s') out.ascii(`${info.size}\n`);
  else if (mode === '-p') prettyPrint(odb, id, out);
  else {
    const t = typeCode(wantType!);
    if (!t) throw fatal(`invalid object type "${wantType}"`);
    const peeled = revs.peel(id, t, spec);
    out.bytes(odb.mustRead(peeled).data);
  }
  out.flush();
  return 0;
}

const DEFAULT_FORMAT = '%(objectname) %(objecttype) %(objectsize)';

interface CompiledFormat {
  parts: (string | 'objectname' | 'objecttype' | 'objectsize' | 'rest')[];
  literal: boolean[];
  usesRest: boolean;
  needsInfo: boolean;
}

function compileFormat(format: string): CompiledFormat {
  const parts: CompiledFormat['parts'] = [];
  const literal: boolean[] = [];
  const re = /%\(([a-z:]+)\)/g;
  let last = 0, m: RegExpExecArray | null;
  while ((m = re.exec(format))) {
    if (m.index > last) { parts.push(format.slice(last, m.index)); literal.push(true); }
    const atom = m[1]!;
    if (atom !== 'objectname' && atom !== 'objecttype' && atom !== 'objectsize' && atom !== 'rest') {
      throw fatal(`unknown format element: ${m[0]}`);
    }
    parts.push(atom);
    literal.push(false);
    last = re.lastIndex;
  }
  if (last < format.length) { parts.push(format.slice(last)); literal.push(true); }
  return {
    parts, literal,
    usesRest: parts.some((p, i) => !literal[i] && p === 'rest'),
    needsInfo: parts.some((p, i) => !literal[i] && (p === 'objecttype' || p === 'objectsize')),
  };
}

function batchOne(odb: ObjectStore, out: Output, fmt: CompiledFormat, contents: boolean,
  id: Uint8Array, hex: string, rest: string): void {
  let type = 0, size = 0, data: Buffer | null = null;
  // An id listed by --batch-all-objects may be in no readable place (only in a pack that fails its
  // checks, whose index still lists it): git says it is missing, by its id.
  if (contents) {
    // Transient: the data is copied to the output before the next read reuses its buffer.
    const o = odb.read(id, 0, true);
    if (!o) return void out.ascii(`${hex} missing\n`);
    type = o.type; size = o.data.length; data = o.data;
  } else if (fmt.needsInfo) {
    const info = odb.info(id);
    if (!info) return void out.ascii(`${hex} missing\n`);
    type = info.type; size = info.size;
  }
  for (let i = 0; i < fmt.parts.length; i++) {
    const p = fmt.parts[i]!;
    if (fmt.literal[i]) { out.text(p); continue; }
    if (p === 'objectname') out.ascii(hex);
    else if (p === 'objecttype') out.ascii(typeName(type));
    else if (p === 'objectsize') out.ascii(String(size));
    else out.text(rest);
  }
  out.byte(0x0a);
  if (data) {
    out.bytes(data);
    out.byte(0x0a);
  }
}

/** What `cat-file -p` prints: trees as listings, everything else as stored. */
export function prettyPrint(odb: ObjectStore, id: Uint8Array, out: Output): void {
  const o = odb.mustRead(id);
  if (o.type === OBJ_TREE) printTree(out, o.data, toHex(id));
  else out.bytes(o.data);
}

function printTree(out: Output, data: Buffer, label: string): void {
  const cur = new TreeCursor(data, 0, data.length, label);
  while (cur.next()) {
    const type = cur.isTree() ? 'tree' : cur.isGitlink() ? 'commit' : 'blob';
    out.ascii(`${formatMode(cur.mode)} ${type} ${toHex(data, cur.oidOffset)}\t`);
    out.bytes(data.subarray(cur.nameStart, cur.nameEnd));
    out.byte(0x0a);
  }
}
