// The common legacy code pages as tables read out of the system's iconv, once per process (per
// writer thread) and encoding: every non-ASCII code point of the Basic Multilingual Plane goes
// through one `iconv -c` run, one per line, and what comes back on each line is that code point's
// bytes (nothing: the code page lacks it). Checkout then encodes a file by lookup instead of an
// iconv process per file, with iconv's own answers, so the bytes are still git's.
//
// Only for encodings glibc converts one code point at a time, with ASCII as itself and no byte
// 0x0A inside a multi-byte character, so that the lines line up: the ISO-8859 family,
// Windows-125x except 1255 and 1258 (glibc composes and decomposes accents there), KOI8, and the
// CJK double-byte and GB18030 encodings. ISO-2022 and other stateful encodings, and every name not
// listed (even an alias of one that is), take the per-file path in encoding.ts. The same property
// lets iconv.ts convert many files of these encodings in one run (iconvEach).
import { iconv, iconvJoined } from './iconv.js';

const POINTWISE_NAMES = /^(ISO[-_]?8859[-_]([1-9]|1[0-6])|LATIN[1-9]|WINDOWS-125[0-47]|CP125[0-47]|KOI8-[RU]|SHIFT[-_]JIS|SJIS|CP932|WINDOWS-31J|EUC-?JP|EUC-?KR|CP949|UHC|GBK|CP936|GB18030|BIG5)$/i;

/** Whether glibc converts `encoding` one code point at a time, ASCII as itself, with no 0x0A inside a character. */
export function isPointwise(encoding: string): boolean {
  return POINTWISE_NAMES.test(encoding);
}

interface CodePage {
  /** Bytes of each BMP code point from U+0080 (index cp - 0x80); null where the code page lacks it. */
  bmp: (Buffer | null)[];
  /** Code points past the BMP, looked up as files need them. */
  astral: Map<number, Buffer | null>;
}

/** Per encoding name: its table, or null when iconv cannot build one (then iconv runs per file). */
const pages = new Map<string, CodePage | null>();

/** Converts `codePoints` (none ASCII) one per line; their bytes in order, or null if the lines do not line up. */
function convertEach(codePoints: number[], encoding: string): (Buffer | null)[] | null {
  const r = iconvJoined(codePoints.map(cp => Buffer.from(String.fromCodePoint(cp), 'utf8')), '\n', 'UTF-8', encoding, true);
  return r?.whole ? r.parts.map(part => (part.length ? part : null)) : null;
}

function build(encoding: string): CodePage | null {
  // ASCII must come back as itself, or the lines cannot be split at 0x0A.
  const ascii = Buffer.from(Array.from({ length: 0x80 }, (_, b) => b));
  const echoed = iconv(ascii, 'UTF-8', encoding);
  if (!echoed || !echoed.equals(ascii)) return null;
  const codePoints: number[] = [];
  for (let cp = 0x80; cp < 0x10000; cp++) if (cp < 0xd800 || cp >= 0xe000) codePoints.push(cp);
  const parts = convertEach(codePoints, encoding);
  if (!parts) return null;
  const bmp: (Buffer | null)[] = new Array(0x10000 - 0x80).fill(null);
  codePoints.forEach((cp, k) => { bmp[cp - 0x80] = parts[k]!; });
  return { bmp, astral: new Map() };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `data` (UTF-8) in `encoding` by table: the bytes, null where git's iconv fails (not UTF-8, a
 * character the code page lacks), or undefined when `encoding` has no table (use iconv per file).
 */
export function encodeWithCodePage(data: Uint8Array, encoding: string): Buffer | null | undefined {
  if (!isPointwise(encoding)) return undefined;
  const key = encoding.toUpperCase();
  let page = pages.get(key);
  if (page === undefined) pages.set(key, page = build(encoding));
  if (!page) return undefined;
  let text: string;
  try {
    text = strictUtf8.decode(data);
  } catch {
    return null;
  }
  // Past the BMP (GB18030 encodes them all), what this file needs that is not known yet, in one run.
  const wanted = new Set<number>();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp > 0xffff && !page.astral.has(cp)) wanted.add(cp);
  }
  if (wanted.size) {
    const parts = convertEach([...wanted], encoding);
    if (!parts) return undefined;
    [...wanted].forEach((cp, k) => page.astral.set(cp, parts[k]!));
  }
  const out = Buffer.allocUnsafe(data.length * 2 + 4);
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      out[o++] = unit;
      continue;
    }
    let bytes: Buffer | null | undefined;
    if (unit >= 0xd800 && unit < 0xdc00) {
      bytes = page.astral.get(text.codePointAt(i)!);
      i++;
    } else bytes = page.bmp[unit - 0x80];
    if (!bytes) return null;
    // At most twice a character's UTF-8 length (GB18030 writes U+0080 in four bytes).
    o += bytes.copy(out, o);
  }
  return out.subarray(0, o);
}
