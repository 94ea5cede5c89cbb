// What git's convert_to_git does to a work-tree file before it compares it with the index (as
// ie_modified's content check runs it: without CONV_WRITE_OBJECT, so a failed step leaves the
// content as it was instead of stopping): working-tree-encoding back to UTF-8 (encode_to_git),
// CRLF to LF (crlf_to_git), "$Id: ... $" back to "$Id$" (ident_to_git).
import { Crlf, countIdent, gatherStats, isBinary, type Conversion } from './convert.js';
import { encodeToGit } from './encoding.js';

const CR = 0x0d, LF = 0x0a, DOLLAR = 0x24;

/** git's has_crlf_in_index: the indexed blob is text with CRLF in it. */
function hasCrlfInIndex(blob: Uint8Array): boolean {
  if (blob.indexOf(CR) < 0) return false;
  const stats = gatherStats(blob);
  return !isBinary(stats) && stats.crlf > 0;
}

/** git's crlf_to_git (no renormalising), or null when it leaves the content alone. */
function crlfToGit(src: Buffer, crlf: Crlf, indexBlob: () => Uint8Array): Buffer | null {
  if (crlf === Crlf.Binary || !src.length) return null;
  const stats = gatherStats(src);
  if (!stats.crlf) return null;
  const auto = crlf === Crlf.Auto || crlf === Crlf.AutoInput || crlf === Crlf.AutoCrlf;
  // A guessed text file is left alone when it looks binary or the index already has CRLF in it.
  if (auto && (isBinary(stats) || hasCrlfInIndex(indexBlob()))) return null;
  const out = Buffer.allocUnsafe(src.length);
  let o = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    // After the guess no lone CR is left (it would have made the file binary): every CR goes.
    if (c === CR && (auto || src[i + 1] === LF)) continue;
    out[o++] = c;
  }
  return out.subarray(0, o);
}

/** git's ident_to_git: each "$Id: ... $" within a line collapsed to "$Id$", or null when there is none. */
function identToGit(src: Buffer): Buffer | null {
  if (!countIdent(src)) return null;
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const dollar = src.indexOf(DOLLAR, pos);
    if (dollar < 0) break;
    parts.push(src.subarray(pos, dollar + 1));
    pos = dollar + 1;
    if (src.length - pos > 3 && src[pos] === 0x49 && src[pos + 1] === 0x64 && src[pos + 2] === 0x3a) {
      const close = src.indexOf(DOLLAR, pos + 3);
      if (close < 0) break;
      const nl = src.indexOf(LF, pos + 3);
      if (nl >= 0 && nl < close) continue;
      parts.push(Buffer.from('Id$', 'latin1'));
      pos = close + 1;
    }
  }
  parts.push(src.subarray(pos));
  return Buffer.concat(parts);
}

/**
 * Work-tree content `data` of `path` as git would store it under `conv`; `indexBlob` reads the
 * blob the index has for the path (text=auto looks at it).
 */
export function convertToGit(path: string, data: Uint8Array, conv: Conversion, indexBlob: () => Uint8Array): Buffer {
  let out = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (conv.encoding !== null) out = encodeToGit(path, out, conv.encoding) ?? out;
  out = crlfToGit(out, conv.crlf, indexBlob) ?? out;
  if (conv.ident) out = identToGit(out) ?? out;
  return out;
}
