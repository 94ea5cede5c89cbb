// What git's convert_to_git does to a work-tree file before it compares it with the index (as
// ie_modified's content check runs it: without CONV_WRITE_OBJECT, so a failed step leaves the
// content as it was, with git's error, instead of stopping): working-tree-encoding back to UTF-8
// (encode_to_git), CRLF to LF (crlf_to_git), "$Id: ... $" back to "$Id$" (ident_to_git). Files go
// through together, so that the encoding step converts many in one go (encodeManyToGit).
import { Crlf, countIdent, gatherStats, isBinary, type Conversion } from './convert.js';
import { encodeManyToGit, type EncodedFile } from './encoding.js';

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

/** A work-tree file to read back: its path as git shows it, its content and its conversion (null: none). */
export interface WorkTreeFile {
  path: string;
  data: Uint8Array;
  conv: Conversion | null;
  /** Reads the blob the index has for the path (text=auto looks at it). */
  indexBlob: () => Uint8Array;
}

/**
 * Each file's content as git would store it, and the lines git prints on the way (a
 * working-tree-encoding it cannot read the file in: the file then goes on as it is).
 */
export function convertManyToGit(files: readonly WorkTreeFile[]): { data: Buffer; messages: string[] }[] {
  const encoded: EncodedFile[] = [];
  for (const f of files) if (f.conv?.encoding != null) encoded.push({ path: f.path, data: f.data, encoding: f.conv.encoding });
  const toGit = encodeManyToGit(encoded);
  let next = 0;
  return files.map(f => {
    let out = Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength);
    let messages: string[] = [];
    if (!f.conv) return { data: out, messages };
    if (f.conv.encoding !== null) {
      const r = toGit[next++]!;
      if (r.data) out = r.data;
      else messages = r.messages;
    }
    out = crlfToGit(out, f.conv.crlf, f.indexBlob) ?? out;
    if (f.conv.ident) out = identToGit(out) ?? out;
    return { data: out, messages };
  });
}
