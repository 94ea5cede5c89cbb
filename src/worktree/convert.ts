// What git's convert.c does to a blob on its way into the work tree, for the attributes and
// settings that need no external program: `ident` ($Id$ expansion), then end-of-line conversion
// (text/crlf/eol attributes, core.autocrlf, core.eol), then working-tree-encoding (encoding.ts).
// Filter drivers run after these (filter/). Anything tsgit cannot do is reported rather than skipped, since
// skipping would leave a work tree that differs from git's without saying so.
import { GitError } from '../core/errors.js';
import { toHex } from '../core/oid.js';
import type { AttrValue } from './attributes/rules.js';
import { encodeToWorkTree, isUtf8Name } from './encoding.js';
import { identToWorkTreeStreaming } from './ident-stream.js';

/** The attributes convert.c consults, in the order its check list names them. */
export const CONVERT_ATTRIBUTES = ['crlf', 'ident', 'filter', 'eol', 'text', 'working-tree-encoding'] as const;

/** git's enum convert_crlf_action. */
export const enum Crlf {
  Undefined, Binary, Text, TextInput, TextCrlf, Auto, AutoCrlf, AutoInput,
}

export type AutoCrlf = 'false' | 'true' | 'input';
export type CoreEol = 'unset' | 'lf' | 'crlf' | 'native';

export interface EolSettings {
  autocrlf: AutoCrlf;
  eol: CoreEol;
}

export interface Conversion {
  crlf: Crlf;
  ident: boolean;
  /** working-tree-encoding, null for UTF-8 (no re-encoding). */
  encoding: string | null;
}

/** core.autocrlf as git reads it: "input", else a boolean. */
export function parseAutoCrlf(value: string | undefined, asBool: () => boolean | undefined): AutoCrlf {
  if (value !== undefined && value.toLowerCase() === 'input') return 'input';
  return asBool() ? 'true' : 'false';
}

export function parseCoreEol(value: string | undefined): CoreEol {
  const v = value?.toLowerCase();
  return v === 'lf' || v === 'crlf' || v === 'native' ? v : 'unset';
}

function crlfFromAttr(v: AttrValue | undefined): Crlf {
  if (v === true) return Crlf.Text;
  if (v === false) return Crlf.Binary;
  if (v === 'input') return Crlf.TextInput;
  if (v === 'auto') return Crlf.Auto;
  return Crlf.Undefined;
}

/** git's text_eol_is_crlf: where "text" without eol= ends up. Native is LF off Windows. */
function textEolIsCrlf(s: EolSettings): boolean {
  if (s.autocrlf === 'true') return true;
  if (s.autocrlf === 'input') return false;
  return s.eol === 'crlf';
}

/**
 * git's convert_attrs: the conversion for one path, from its attribute values (the filter
 * driver is looked up apart, filter/driver.ts). Throws for a working-tree-encoding of true/false,
 * naming the path.
 */
export function conversionFor(values: Map<string, AttrValue>, settings: EolSettings, path: string): Conversion {
  const encoding = values.get('working-tree-encoding');
  if (encoding === true || encoding === false) {
    throw new GitError('worktree', 'bad-attribute', `${path}: true/false are no valid working-tree-encodings`);
  }
  let crlf = crlfFromAttr(values.get('text'));
  if (crlf === Crlf.Undefined) crlf = crlfFromAttr(values.get('crlf'));
  if (crlf !== Crlf.Binary) {
    const eol = values.get('eol');
    if (crlf === Crlf.Auto && eol === 'lf') crlf = Crlf.AutoInput;
    else if (crlf === Crlf.Auto && eol === 'crlf') crlf = Crlf.AutoCrlf;
    else if (eol === 'lf') crlf = Crlf.TextInput;
    else if (eol === 'crlf') crlf = Crlf.TextCrlf;
  }
  if (crlf === Crlf.Text) crlf = textEolIsCrlf(settings) ? Crlf.TextCrlf : Crlf.TextInput;
  if (crlf === Crlf.Undefined) {
    crlf = settings.autocrlf === 'true' ? Crlf.AutoCrlf : settings.autocrlf === 'input' ? Crlf.AutoInput : Crlf.Binary;
  }
  return { crlf, ident: values.get('ident') === true, encoding: typeof encoding === 'string' && encoding !== '' && !isUtf8Name(encoding) ? encoding : null };
}

/** In a conversion code: the entry has a working-tree-encoding (its name is kept beside the codes). */
export const CODE_ENCODING = 0x20;
/** In a conversion code: set by the writer when the entry's encoding failed (git's "failed to encode"). */
export const CODE_ENCODE_FAILED = 0x40;

/** A conversion as one byte, for a column worker threads share: 0 for none. */
export function conversionCode(conv: Conversion | null): number {
  return conv ? 1 | (conv.crlf << 1) | (conv.ident ? 0x10 : 0) | (conv.encoding !== null ? CODE_ENCODING : 0) : 0;
}

/** The conversion of `code`, with `encoding` the name kept for an entry whose code has CODE_ENCODING. */
export function conversionFromCode(code: number, encoding: string | null = null): Conversion | null {
  return code ? { crlf: ((code >> 1) & 7) as Crlf, ident: (code & 0x10) !== 0, encoding: code & CODE_ENCODING ? encoding : null } : null;
}

/** git's output_eol: whether files with this action get CRLF in the work tree. */
function outputsCrlf(crlf: Crlf, settings: EolSettings): boolean {
  switch (crlf) {
    case Crlf.TextCrlf: case Crlf.AutoCrlf: case Crlf.Undefined: return true;
    case Crlf.Text: case Crlf.Auto: return textEolIsCrlf(settings);
    default: return false;
  }
}

/** Whether `conv` can change any content (so the caller can skip the call). */
export function convertsAnything(conv: Conversion, settings: EolSettings): boolean {
  return conv.ident || outputsCrlf(conv.crlf, settings) || conv.encoding !== null;
}

export interface TextStats { nul: number; lonecr: number; lonelf: number; crlf: number; printable: number; nonprintable: number }

/** git's gather_stats. */
export function gatherStats(buf: Uint8Array): TextStats {
  const s: TextStats = { nul: 0, lonecr: 0, lonelf: 0, crlf: 0, printable: 0, nonprintable: 0 };
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const c = buf[i]!;
    if (c === 0x0d) {
      if (i + 1 < n && buf[i + 1] === 0x0a) { s.crlf++; i++; } else s.lonecr++;
      continue;
    }
    if (c === 0x0a) { s.lonelf++; continue; }
    if (c === 127) s.nonprintable++;
    else if (c < 32) {
      // BS, HT, ESC and FF count as printable.
      if (c === 8 || c === 9 || c === 27 || c === 12) s.printable++;
      else {
        if (c === 0) s.nul++;
        s.nonprintable++;
      }
    } else s.printable++;
  }
  // A trailing ^Z (DOS end of file) is not counted against the file.
  if (n >= 1 && buf[n - 1] === 0x1a) s.nonprintable--;
  return s;
}

/** git's convert_is_binary: the heuristic text=auto relies on. */
export function isBinary(s: TextStats): boolean {
  return s.lonecr > 0 || s.nul > 0 || (s.printable >> 7) < s.nonprintable;
}

/** git's crlf_to_worktree: LF becomes CRLF where git would convert, else null. */
function lfToCrlf(src: Uint8Array, crlf: Crlf): Buffer | null {
  if (!src.length) return null;
  const stats = gatherStats(src);
  if (!stats.lonelf) return null;
  if (crlf === Crlf.Auto || crlf === Crlf.AutoInput || crlf === Crlf.AutoCrlf) {
    // Files that already have CRs are left alone, and so are binary ones.
    if (stats.lonecr || stats.crlf || isBinary(stats)) return null;
  }
  const out = Buffer.allocUnsafe(src.length + stats.lonelf);
  let o = 0, start = 0;
  for (let nl = src.indexOf(0x0a); nl >= 0; nl = src.indexOf(0x0a, start)) {
    if (nl > 0 && src[nl - 1] === 0x0d) {
      out.set(src.subarray(start, nl + 1), o);
      o += nl + 1 - start;
    } else {
      out.set(src.subarray(start, nl), o);
      o += nl - start;
      out[o++] = 0x0d;
      out[o++] = 0x0a;
    }
    start = nl + 1;
  }
  out.set(src.subarray(start), o);
  o += src.length - start;
  return out.subarray(0, o);
}

const DOLLAR = 0x24;

/** git's count_ident: "$Id$" and "$Id: ... $" (not spanning a line) occurrences. */
export function countIdent(src: Uint8Array): number {
  let cnt = 0;
  const n = src.length;
  for (let i = 0; i < n;) {
    if (src[i++] !== DOLLAR) continue;
    if (n - i < 3) break;
    if (src[i] !== 0x49 || src[i + 1] !== 0x64) continue;
    const ch = src[i + 2];
    i += 3;
    if (ch === DOLLAR) cnt++;
    if (ch !== 0x3a) continue;
    while (i < n) {
      const c = src[i++];
      if (c === DOLLAR) { cnt++; break; }
      if (c === 0x0a) break;
    }
  }
  return cnt;
}

/** git's ident_to_worktree: "$Id$" becomes "$Id: <blob id> $". */
function identToWorkTree(src: Uint8Array, oid: Uint8Array): Buffer | null {
  if (!countIdent(src)) return null;
  const expansion = Buffer.from(`Id: ${toHex(oid)} $`, 'latin1');
  const parts: Uint8Array[] = [];
  let pos = 0;
  const len = src.length;
  for (;;) {
    const dollar = src.indexOf(DOLLAR, pos);
    if (dollar < 0) break;
    parts.push(src.subarray(pos, dollar + 1));
    pos = dollar + 1;
    const left = len - pos;
    if (left < 3 || src[pos] !== 0x49 || src[pos + 1] !== 0x64) continue;
    if (src[pos + 2] === DOLLAR) {
      pos += 3;
    } else if (src[pos + 2] === 0x3a) {
      // An expanded id that crept into the repository is replaced, unless it is broken or
      // looks like another system's keyword (spaces inside).
      const close = src.indexOf(DOLLAR, pos + 3);
      if (close < 0) break;
      const nl = src.indexOf(0x0a, pos + 3);
      if (nl >= 0 && nl < close) continue;
      const spc = src.indexOf(0x20, pos + 4);
      if (spc >= 0 && spc < close - 1) continue;
      pos = close + 1;
    } else {
      continue;
    }
    parts.push(expansion);
  }
  parts.push(src.subarray(pos));
  return Buffer.concat(parts);
}

/**
 * git's classify_conv_attrs: whether git streams this blob into the work tree (get_stream_filter)
 * rather than converting it in memory. Its streaming ident filter is not its in-memory one, so the
 * choice shows in the bytes. A filter driver with a command also means in memory.
 */
function streamable(conv: Conversion): boolean {
  return conv.encoding === null && conv.crlf !== Crlf.Auto && conv.crlf !== Crlf.AutoCrlf;
}

/**
 * The bytes git writes to the work tree for blob `oid` with content `data`. When the
 * working-tree-encoding cannot be applied, git reports it and writes the content as it is before
 * that step; `onEncodeFailure` is told. `filtered`: a filter driver gets the result, and git
 * converts such a file in memory, never through its streaming filters.
 */
export function convertToWorkTree(data: Buffer, oid: Uint8Array, conv: Conversion, settings: EolSettings,
  onEncodeFailure?: () => void, filtered = false): Buffer {
  let out = data;
  if (conv.ident) out = (!filtered && streamable(conv) ? identToWorkTreeStreaming(out, oid) : identToWorkTree(out, oid)) ?? out;
  if (outputsCrlf(conv.crlf, settings)) out = lfToCrlf(out, conv.crlf) ?? out;
  if (conv.encoding !== null) {
    const encoded = encodeToWorkTree(out, conv.encoding);
    if (encoded) out = encoded;
    else onEncodeFailure?.();
  }
  return out;
}
