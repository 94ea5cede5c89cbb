// The packed-refs file (refs/packed-backend.c): an optional header line
// "# pack-refs with: <traits>", then "<hex> <name>\n" lines sorted by name, each optionally followed
// by "^<hex>\n", the object an annotated tag peels to. Parsing keeps each record's byte range so a
// deletion can drop its lines and leave the rest of the file exactly as it was.
import fs from 'node:fs';
import { CorruptError } from '../core/errors.js';
import { isHexOid } from '../core/oid.js';
import { checkRefFormat } from './check-ref-format.js';
import { isMissing } from './loose.js';
import { compareRefNames } from './sort.js';

export const PACKED_REFS_HEADER = '# pack-refs with: peeled fully-peeled sorted \n';

export interface PackedRef {
  name: string;
  oid: string;
  /**
   * What an annotated tag peels to. null when the file's traits promise a "^" line for every tag
   * ("fully-peeled", or "peeled" for refs/tags/) and there is none: git then trusts that the ref
   * does not peel, without reading the object.
   */
  peeled?: string | null;
  /** Set when the name breaks check-ref-format without escaping refs/; git lists it as broken. */
  badName?: true;
  /** Byte range of the record (its line and any "^" line after it). */
  start: number;
  end: number;
}

export interface PackedRefs {
  /** Sorted by name, bytewise. */
  refs: PackedRef[];
  byName: Map<string, PackedRef>;
}

export const EMPTY_PACKED: PackedRefs = { refs: [], byName: new Map() };

const isSpaceByte = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

export function parsePackedRefs(data: Buffer, file: string): PackedRefs {
  const refs: PackedRef[] = [];
  let pos = 0;
  let lineNo = 1;
  let sorted = false;
  let peelAll = false, peelTags = false;
  // A loop rather than data.indexOf: each of that call's trips into C++ cost some 3 us, a third of
  // the parse of 1,700 refs in a fresh process (every upload-pack over ssh parses the file anew).
  const lineEnd = (from: number) => {
    let nl = from;
    while (nl < data.length && data[nl] !== 0x0a) nl++;
    if (nl === data.length) throw new CorruptError('refs', `${file}: unterminated line ${lineNo}: ${show(data, from, data.length)}`);
    return nl;
  };
  const invalid = (from: number, to: number): never => {
    throw new CorruptError('refs', `${file}: unexpected line ${lineNo}: ${show(data, from, to)}`);
  };
  if (data[0] === 0x23) {
    const nl = lineEnd(0);
    const header = data.toString('utf8', 0, nl);
    if (!header.startsWith('# pack-refs with:')) invalid(0, nl);
    const traits = header.slice('# pack-refs with:'.length).split(' ');
    sorted = traits.includes('sorted');
    peelAll = traits.includes('fully-peeled');
    peelTags = traits.includes('peeled');
    pos = nl + 1;
    lineNo++;
  }
  while (pos < data.length) {
    const start = pos;
    const nl = lineEnd(pos);
    const hex = data.toString('latin1', pos, pos + 40);
    if (nl - pos < 41 || !isHexOid(hex) || !isSpaceByte(data[pos + 40])) invalid(pos, nl);
    const name = data.toString('utf8', pos + 41, nl);
    const ref: PackedRef = { name, oid: hex.toLowerCase(), start, end: nl + 1 };
    if (checkRefFormat(name, { allowOneLevel: true }) !== null) {
      if (!isSafeRefName(name)) throw new CorruptError('refs', `${file}: line ${lineNo}: packed refname is dangerous: ${JSON.stringify(name)}`);
      ref.badName = true;
    }
    pos = nl + 1;
    lineNo++;
    if (data[pos] === 0x5e) {
      const pnl = lineEnd(pos);
      const peeled = data.toString('latin1', pos + 1, pnl);
      if (!isHexOid(peeled)) invalid(pos, pnl);
      if (!ref.badName) ref.peeled = peeled.toLowerCase();
      pos = pnl + 1;
      ref.end = pos;
      lineNo++;
    } else if (!ref.badName && (peelAll || (peelTags && name.startsWith('refs/tags/')))) {
      ref.peeled = null;
    }
    refs.push(ref);
  }
  if (!sorted || !isSorted(refs)) refs.sort((a, b) => compareRefNames(a.name, b.name));
  const byName = new Map<string, PackedRef>();
  for (const r of refs) if (!byName.has(r.name)) byName.set(r.name, r);
  return { refs, byName };
}

function isSorted(refs: PackedRef[]): boolean {
  for (let i = 1; i < refs.length; i++) if (compareRefNames(refs[i - 1]!.name, refs[i]!.name) > 0) return false;
  return true;
}

function show(data: Buffer, from: number, to: number): string {
  return JSON.stringify(data.toString('utf8', from, Math.min(to, from + 100)));
}

/**
 * git's refname_is_safe: a name under refs/ whose components are all non-empty and neither '.'
 * nor '..', or a one-level name in capitals and underscores.
 */
export function isSafeRefName(name: string): boolean {
  if (name.startsWith('refs/')) {
    const rest = name.slice(5).split('/');
    return rest.every((c) => c !== '' && c !== '.' && c !== '..');
  }
  return /^[A-Z_]+$/.test(name);
}

/** The complete text of a packed-refs file holding `refs`, which must be sorted and valid. */
export function formatPackedRefs(refs: readonly { name: string; oid: string; peeled?: string }[]): Buffer {
  const parts: string[] = [PACKED_REFS_HEADER];
  for (const r of refs) {
    parts.push(`${r.oid} ${r.name}\n`);
    if (r.peeled !== undefined) parts.push(`^${r.peeled}\n`);
  }
  return Buffer.from(parts.join(''), 'utf8');
}

/** `data` without the records of `drop` (records parsed from this same data). */
export function removeRecords(data: Buffer, drop: PackedRef[]): Buffer {
  const ranges = drop.map((r) => [r.start, r.end] as const).sort((a, b) => a[0] - b[0]);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    pieces.push(data.subarray(at, start));
    at = end;
  }
  pieces.push(data.subarray(at));
  return Buffer.concat(pieces);
}

/**
 * The parsed packed-refs of one repository, re-read only when the file's identity or stat data
 * changes (git's stat_validity). Writers replace the file by rename, so the inode changes too.
 */
export class PackedRefsCache {
  private key = '';
  private value: PackedRefs = EMPTY_PACKED;

  constructor(readonly file: string) {}

  get(): PackedRefs {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch (e) {
      if (!isMissing(e)) throw e;
      this.key = '';
      this.value = EMPTY_PACKED;
      return this.value;
    }
    const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    if (key !== this.key) {
      this.value = parsePackedRefs(fs.readFileSync(this.file), this.file);
      this.key = key;
    }
    return this.value;
  }

  /** Forgets the cached parse, for after this process rewrote the file. */
  invalidate(): void {
    this.key = '';
  }
}
