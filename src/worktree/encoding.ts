// working-tree-encoding: what git's convert.c (encode_to_worktree, encode_to_git,
// validate_encoding) and utf8.c (reencode_string_len, same_utf_encoding, the BOM rules) do with
// the C library's iconv. Blobs are UTF-8; the work tree holds the named encoding.
//
// The UTF-16 and UTF-32 family is converted here, byte for byte as glibc's iconv does it ("UTF-16"
// and "UTF-32" carry a BOM and use the machine's byte order; the LE/BE names carry none; git adds
// the BOM for its own UTF-16LE-BOM and UTF-16BE-BOM), and so is ISO-8859-1 (each byte the code
// point of its value). Every other name goes to the system's `iconv` program: it is the converter
// git itself links (glibc's on Linux, libiconv on macOS), so its tables, aliases and refusals are
// git's. No JavaScript table agrees with it: glibc's SHIFT_JIS reads 0x5C as U+00A5, its GBK, BIG5
// and EUC-JP are not the Windows code pages that WHATWG's decoders and iconv-lite implement, and
// those libraries replace what they cannot encode with '?' where iconv refuses. Towards the work
// tree, the common stateless code pages are read out of iconv once per process into a table
// (code-page.ts); back from it, the files of one such code page go through one iconv run together
// (iconv.ts's iconvEach). Any other name costs an iconv process per file: it may keep state from
// one character to the next, so files cannot share a run.
//
// A conversion git cannot do (an unknown name, content the encoding cannot hold, a blob that is
// not UTF-8) is not fatal at checkout: git reports "failed to encode" and writes the blob as it is.
// Reading a file back for a comparison, git reports it too and takes the file as it is.
import os from 'node:os';
import { encodeWithCodePage, isPointwise } from './code-page.js';
import { iconv, iconvEach } from './iconv.js';

const UTF16_BE_BOM = Buffer.from([0xfe, 0xff]);
const UTF16_LE_BOM = Buffer.from([0xff, 0xfe]);
const UTF32_BE_BOM = Buffer.from([0, 0, 0xfe, 0xff]);
const UTF32_LE_BOM = Buffer.from([0xff, 0xfe, 0, 0]);

/** git's same_utf_encoding: both names start with "utf", and agree after it and one optional '-'. */
export function sameUtfEncoding(a: string, b: string): boolean {
  if (!/^utf/i.test(a) || !/^utf/i.test(b)) return false;
  const rest = (s: string): string => s.slice(s[3] === '-' ? 4 : 3).toLowerCase();
  return rest(a) === rest(b);
}

/** git's same_encoding(name, "UTF-8"): names that mean no conversion at all. */
export function isUtf8Name(name: string): boolean {
  return sameUtfEncoding(name, 'UTF-8');
}

/** git's message when a conversion fails (an error, not fatal, at checkout). */
export function encodeFailure(path: string, from: string, to: string): string {
  return `failed to encode '${path}' from ${from} to ${to}`;
}

type UnitSize = 2 | 4;
interface UtfForm { unit: UnitSize; bigEndian: boolean; bom: boolean }

const HOST_BE = os.endianness() === 'BE';

/**
 * The UTF-16/32 form glibc's iconv_open gives `name` (its aliases UTF16, UTF32LE... included), or
 * null for any other name. Only the plain spellings are taken: anything glibc might normalise
 * differently goes to the iconv program, which knows.
 */
function utfForm(name: string): UtfForm | null {
  const m = /^UTF-?(16|32)(LE|BE)?$/i.exec(name);
  if (!m) return null;
  const unit = m[1] === '16' ? 2 : 4;
  const order = m[2]?.toUpperCase();
  return order ? { unit, bigEndian: order === 'BE', bom: false } : { unit, bigEndian: HOST_BE, bom: true };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Spellings of ISO-8859-1 that glibc knows (and git's fallback latin-1): converted here. */
const LATIN1_NAMES = /^(ISO[-_]8859-1|ISO8859-1|LATIN-?1)$/i;

/** UTF-8 to ISO-8859-1; null for input that is not UTF-8, or holds a character past U+00FF. */
function encodeLatin1(data: Uint8Array): Buffer | null {
  let text: string;
  try {
    text = strictUtf8.decode(data);
  } catch {
    return null;
  }
  return /[^\u0000-\u00ff]/.test(text) ? null : Buffer.from(text, 'latin1');
}

/** ISO-8859-1 to UTF-8: every byte is a character. */
function decodeLatin1(data: Uint8Array): Buffer {
  return Buffer.from(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1'), 'utf8');
}

/** UTF-8 to UTF-16/32 in `form`; null for input that is not UTF-8 (iconv's EILSEQ/EINVAL). */
function encodeUtf(data: Uint8Array, form: UtfForm, bom: Buffer | null): Buffer | null {
  let text: string;
  try {
    text = strictUtf8.decode(data);
  } catch {
    return null;
  }
  const head = bom ?? (form.bom ? (form.unit === 2 ? (form.bigEndian ? UTF16_BE_BOM : UTF16_LE_BOM) : (form.bigEndian ? UTF32_BE_BOM : UTF32_LE_BOM)) : null);
  const headLen = head ? head.length : 0;
  if (form.unit === 2) {
    const out = Buffer.allocUnsafe(headLen + text.length * 2);
    if (head) head.copy(out, 0);
    out.write(text, headLen, 'utf16le');
    if (form.bigEndian) out.subarray(headLen).swap16();
    return out;
  }
  const out = Buffer.allocUnsafe(headLen + text.length * 4);
  if (head) head.copy(out, 0);
  let o = headLen;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (form.bigEndian) out.writeUInt32BE(cp, o);
    else out.writeUInt32LE(cp, o);
    o += 4;
  }
  return out.subarray(0, o);
}

/**
 * UTF-16/32 in `form` to UTF-8, as iconv reads it: a leading BOM of a form without a byte order
 * sets the order and is dropped; unpaired surrogates, code points past U+10FFFF and a trailing
 * partial unit fail (null).
 */
function decodeUtf(data: Uint8Array, form: UtfForm): Buffer | null {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let bigEndian = form.bigEndian;
  let pos = 0;
  if (form.bom) {
    // Without a BOM glibc reads the machine's order (form.bigEndian); git never gets that far,
    // validate refuses it first.
    const [be, le] = form.unit === 2 ? [UTF16_BE_BOM, UTF16_LE_BOM] : [UTF32_BE_BOM, UTF32_LE_BOM];
    if (startsWith(buf, be) || startsWith(buf, le)) {
      bigEndian = startsWith(buf, be);
      pos = be.length;
    }
  }
  if ((buf.length - pos) % form.unit) return null;
  const units = (buf.length - pos) / form.unit;
  const codes: number[] = [];
  const parts: string[] = [];
  for (let k = 0; k < units; k++, pos += form.unit) {
    const u = form.unit === 2 ? (bigEndian ? buf.readUInt16BE(pos) : buf.readUInt16LE(pos)) : (bigEndian ? buf.readUInt32BE(pos) : buf.readUInt32LE(pos));
    if (form.unit === 2) {
      if (u >= 0xdc00 && u < 0xe000) return null;
      if (u >= 0xd800 && u < 0xdc00) {
        if (k + 1 >= units) return null;
        const lo = bigEndian ? buf.readUInt16BE(pos + 2) : buf.readUInt16LE(pos + 2);
        if (lo < 0xdc00 || lo >= 0xe000) return null;
        codes.push(u, lo);
        k++;
        pos += 2;
      } else codes.push(u);
    } else {
      if (u > 0x10ffff || (u >= 0xd800 && u < 0xe000)) return null;
      codes.push(u);
    }
    if (codes.length >= 4096) {
      parts.push(form.unit === 2 ? String.fromCharCode(...codes) : String.fromCodePoint(...codes));
      codes.length = 0;
    }
  }
  parts.push(form.unit === 2 ? String.fromCharCode(...codes) : String.fromCodePoint(...codes));
  return Buffer.from(parts.join(''), 'utf8');
}

/**
 * git's encode_to_worktree: UTF-8 blob content as the work tree holds it in `encoding`, or null
 * when git fails to convert it (it then writes the content unconverted). Empty content stays empty.
 */
export function encodeToWorkTree(data: Uint8Array, encoding: string): Buffer | null {
  if (!data.length) return Buffer.alloc(0);
  // UTF-16LE-BOM and UTF-16BE-BOM are git's own names: the BOM, then iconv's LE/BE form.
  if (sameUtfEncoding('UTF-16LE-BOM', encoding)) return encodeUtf(data, { unit: 2, bigEndian: false, bom: false }, UTF16_LE_BOM);
  if (sameUtfEncoding('UTF-16BE-BOM', encoding)) return encodeUtf(data, { unit: 2, bigEndian: true, bom: false }, UTF16_BE_BOM);
  const form = utfForm(encoding);
  if (form) return encodeUtf(data, form, null);
  if (LATIN1_NAMES.test(encoding)) return encodeLatin1(data);
  const viaTable = encodeWithCodePage(data, encoding);
  return viaTable !== undefined ? viaTable : iconv(data, 'UTF-8', encoding);
}

function startsWith(data: Uint8Array, bom: Buffer): boolean {
  return data.length >= bom.length && bom.every((b, k) => data[k] === b);
}

/**
 * git's validate_encoding: for a UTF file whose BOM contradicts its name (a BOM where the name fixes
 * the byte order, none where it does not), its hint and error lines, else null.
 */
export function bomProblem(path: string, encoding: string, data: Uint8Array): string[] | null {
  if (!/^utf/i.test(encoding)) return null;
  const any16 = startsWith(data, UTF16_BE_BOM) || startsWith(data, UTF16_LE_BOM);
  const any32 = startsWith(data, UTF32_BE_BOM) || startsWith(data, UTF32_LE_BOM);
  const named = (...names: string[]): boolean => names.some(n => sameUtfEncoding(n, encoding));
  // What follows "UTF" and an optional '-': git's advice names the encodings to use with it.
  const stripped = encoding.slice(encoding[3] === '-' ? 4 : 3);
  if ((named('UTF-16BE', 'UTF-16LE') && any16) || (named('UTF-32BE', 'UTF-32LE') && any32)) {
    return [`hint: The file '${path}' contains a byte order mark (BOM). Please use UTF-${stripped.slice(0, -2)} as working-tree-encoding.`,
      `error: BOM is prohibited in '${path}' if encoded as ${encoding}`];
  }
  if ((named('UTF-16') && !any16) || (named('UTF-32') && !any32)) {
    return [`hint: The file '${path}' is missing a byte order mark (BOM). Please use UTF-${stripped}BE or UTF-${stripped}LE ` +
      '(depending on the byte order) as working-tree-encoding.', `error: BOM is required in '${path}' if encoded as ${encoding}`];
  }
  return null;
}

/** A work-tree file to read back: its path as git shows it, its content and working-tree-encoding. */
export interface EncodedFile {
  path: string;
  data: Uint8Array;
  encoding: string;
}

/** What encode_to_git makes of a file: its content as UTF-8, or null and the lines git prints. */
export type ToGit = { data: Buffer; messages?: undefined } | { data: null; messages: string[] };

/**
 * git's encode_to_git as its comparisons run it (errors are not fatal there), for many files at
 * once: each file's content as UTF-8, or where git leaves it unconverted (a BOM problem, a failed
 * conversion) the hint and error lines git prints. Empty content stays empty. The files of one
 * pointwise code page share an iconv run.
 */
export function encodeManyToGit(files: readonly EncodedFile[]): ToGit[] {
  const out: ToGit[] = new Array(files.length);
  const failed = (f: EncodedFile): ToGit => ({ data: null, messages: [`error: ${encodeFailure(f.path, f.encoding, 'UTF-8')}`] });
  const batches = new Map<string, number[]>();
  files.forEach((f, k) => {
    if (!f.data.length) {
      out[k] = { data: Buffer.alloc(0) };
      return;
    }
    const problem = bomProblem(f.path, f.encoding, f.data);
    if (problem) {
      out[k] = { data: null, messages: problem };
      return;
    }
    // git reads UTF-16LE-BOM as UTF-16 (either BOM); UTF-16BE-BOM it cannot read back at all.
    const name = sameUtfEncoding('UTF-16LE-BOM', f.encoding) ? 'UTF-16' : f.encoding;
    const form = utfForm(name);
    if (form) {
      const data = decodeUtf(f.data, form);
      out[k] = data ? { data } : failed(f);
    } else if (LATIN1_NAMES.test(name)) {
      out[k] = { data: decodeLatin1(f.data) };
    } else if (isPointwise(name)) {
      const batch = batches.get(name);
      if (batch) batch.push(k);
      else batches.set(name, [k]);
    } else {
      const data = iconv(f.data, name, 'UTF-8');
      out[k] = data ? { data } : failed(f);
    }
  });
  for (const [name, batch] of batches) {
    iconvEach(batch.map(k => files[k]!.data), name, 'UTF-8').forEach((data, j) => {
      const k = batch[j]!;
      out[k] = data ? { data } : failed(files[k]!);
    });
  }
  return out;
}
