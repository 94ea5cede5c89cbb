// The packed-refs file (refs/packed-backend.c): an optional header line
// "# pack-refs with: <traits>", then "<hex> <name>\n" lines sorted by name, each optionally followed
// by "^<hex>\n", the object an annotated tag peels to. Parsing keeps each record's byte range so a
// deletion can drop its lines and leave the rest of the file exactly as it was.
import fs from 'node:fs';
import { CorruptError } from '../core/errors.js';
import { checkRefFormat, isPlainRefName } from './check-ref-format.js';
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

/** A ref line: its id, one blank (not the newline), and the name up to the newline. */
const REF_LINE = /([0-9a-fA-F]{40})[ \t\r]([^\n]*)\n/y;
/** The line after a tag's: "^" and what it peels to. */
const PEEL_LINE = /\^([0-9a-fA-F]{40})\n/y;
const NON_ASCII = /[^\x00-\x7f]/;
export function parsePackedRefs(data: Buffer, file: string): PackedRefs {
  // One string for the whole file and regular expressions over it: a fresh process (every
  // upload-pack over ssh, every push) parses the file once, with its code not yet compiled, and
  // a loop of Buffer calls per line cost some 15 us a ref there (1,700 refs: 24 ms; this: ~5).
  const text = data.toString('latin1');
  const ascii = !NON_ASCII.test(text);
  const refs: PackedRef[] = [];
  let pos = 0;
  let lineNo = 1;
  let sorted = false;
  let peelAll = false, peelTags = false;
  // Typed so, and not by its return alone, for the compiler to know a call of it ends the parse.
  const bad: (from: number) => never = (from) => {
    const nl = text.indexOf('\n', from);
    if (nl < 0) throw new CorruptError('refs', `${file}: unterminated line ${lineNo}: ${show(data, from, data.length)}`);
    throw new CorruptError('refs', `${file}: unexpected line ${lineNo}: ${show(data, from, nl)}`);
  };
  if (text.charCodeAt(0) === 0x23) {
    const nl = text.indexOf('\n');
    if (nl < 0) bad(0);
    const header = data.toString('utf8', 0, nl);
    if (!header.startsWith('# pack-refs with:')) bad(0);
    const traits = header.slice('# pack-refs with:'.length).split(' ');
    sorted = traits.includes('sorted');
    peelAll = traits.includes('fully-peeled');
    peelTags = traits.includes('peeled');
    pos = nl + 1;
    lineNo++;
  }
  while (pos < text.length) {
    const start = pos;
    REF_LINE.lastIndex = pos;
    const m = REF_LINE.exec(text);
    if (!m) bad(pos);
    const nl = REF_LINE.lastIndex - 1;
    const name = ascii ? m[2]! : data.toString('utf8', pos + 41, nl);
    const ref: PackedRef = { name, oid: m[1]!.toLowerCase(), start, end: nl + 1 };
    if (!isPlainRefName(name) && checkRefFormat(name, { allowOneLevel: true }) !== null) {
      if (!isSafeRefName(name)) throw new CorruptError('refs', `${file}: line ${lineNo}: packed refname is dangerous: ${JSON.stringify(name)}`);
      ref.badName = true;
    }
    pos = nl + 1;
    lineNo++;
    if (text.charCodeAt(pos) === 0x5e) {
      PEEL_LINE.lastIndex = pos;
      const p = PEEL_LINE.exec(text);
      if (!p) bad(pos);
      if (!ref.badName) ref.peeled = p[1]!.toLowerCase();
      pos = PEEL_LINE.lastIndex;
      ref.end = pos;
      lineNo++;
    } else if (!ref.badName && (peelAll || (peelTags && name.startsWith('refs/tags/')))) {
      ref.peeled = null;
    }
    refs.push(ref);
  }
  if (!sorted || !isSorted(refs, ascii)) refs.sort((a, b) => compareRefNames(a.name, b.name));
  const byName = new Map<string, PackedRef>();
  for (const r of refs) if (!byName.has(r.name)) byName.set(r.name, r);
  return { refs, byName };
}

/** ASCII names compare as strings do (UTF-16 order is byte order there). */
function isSorted(refs: PackedRef[], ascii: boolean): boolean {
  for (let i = 1; i < refs.length; i++) {
    const a = refs[i - 1]!.name, b = refs[i]!.name;
    if (ascii ? a > b : compareRefNames(a, b) > 0) return false;
  }
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
