// Reading the index: versions 2, 3 (extended flags) and 4 (path prefix compression), the TREE
// extension, and the SHA-1 trailer. Optional extensions tsgit does not interpret are kept as bytes;
// a required one (lower-case signature: split index "link", sparse index "sdir") is refused, since
// reading past it would give a wrong picture of the index.
import fs from 'node:fs';
import { CorruptError, GitError } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { OID_BYTES, oidEquals } from '../../core/oid.js';
import { readExactly } from '../../core/read-exactly.js';
import {
  CE_EXTENDED, CE_EXTENDED_KNOWN, CE_NAME_MASK, compareEntries,
  type CacheTreeNode, type IndexEntry, type IndexExtension, type IndexFile,
} from './entry.js';

const SIGNATURE = 0x44495243; // "DIRC"
const HEADER = 12;
/** Stat data (40 bytes), id, flags: where the name starts without extended flags. */
const NAME_OFFSET = 40 + OID_BYTES + 2;
/** Extensions that describe offsets in the file being read; they mean nothing once rewritten. */
const LAYOUT_EXTENSIONS = new Set(['EOIE', 'IEOT']);

/** Reads `<file>`; null when it does not exist. */
export function readIndexFile(file: string): IndexFile | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    const buf = Buffer.allocUnsafe(Number(st.size));
    readExactly(fd, buf, 0, buf.length, 0, () => new CorruptError('worktree', `${file}: file shrank while being read`));
    const index = parseIndex(buf, file);
    index.timestampSec = Number(st.mtimeNs / 1000000000n);
    index.timestampNsec = Number(st.mtimeNs % 1000000000n);
    return index;
  } finally {
    fs.closeSync(fd);
  }
}

/** Parses index file bytes; `label` names the file in errors. */
export function parseIndex(buf: Uint8Array, label: string): IndexFile {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const bad = (what: string): CorruptError => new CorruptError('worktree', `${label}: ${what}`);
  if (buf.length < HEADER + OID_BYTES) throw bad(`too short to be an index (${buf.length} bytes)`);
  if (view.getUint32(0) !== SIGNATURE) throw bad('bad signature (not an index file)');
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3 && version !== 4) throw bad(`unsupported index version ${version}`);
  const end = buf.length - OID_BYTES;
  const trailer = buf.subarray(end);
  if (trailer.some(b => b !== 0) && !oidEquals(sha1(buf.subarray(0, end)), 0, trailer, 0)) {
    throw bad('checksum mismatch (index file corrupt)');
  }
  const count = view.getUint32(8);
  const entries: IndexEntry[] = new Array(count);
  let pos = HEADER;
  let prevPath: Uint8Array = new Uint8Array(0);
  for (let i = 0; i < count; i++) {
    if (pos + NAME_OFFSET > end) throw bad(`entry ${i} at offset ${pos} runs past the end of the entries`);
    const flags = view.getUint16(pos + 60);
    let nameStart = pos + NAME_OFFSET;
    let extendedFlags = 0;
    if (flags & CE_EXTENDED) {
      if (version < 3) throw bad(`entry ${i} at offset ${pos} has extended flags in a version ${version} index`);
      extendedFlags = view.getUint16(nameStart);
      if (extendedFlags & ~CE_EXTENDED_KNOWN) throw bad(`entry ${i} at offset ${pos} has unknown extended flags 0x${extendedFlags.toString(16)}`);
      nameStart += 2;
    }
    let path: Uint8Array;
    let next: number;
    if (version === 4) {
      // The name is the previous one minus `strip` trailing bytes, plus a NUL-terminated suffix.
      let p = nameStart, c = buf[p++]!, strip = c & 0x7f;
      while (c & 0x80) {
        if (p >= end) throw bad(`entry ${i} at offset ${pos}: truncated name prefix length`);
        c = buf[p++]!;
        strip = ((strip + 1) * 128) + (c & 0x7f);
      }
      if (strip > prevPath.length) throw bad(`entry ${i} at offset ${pos}: strips ${strip} bytes from a ${prevPath.length}-byte name`);
      const nul = buf.indexOf(0, p);
      if (nul < 0 || nul >= end) throw bad(`entry ${i} at offset ${pos}: name not terminated`);
      const keep = prevPath.length - strip;
      path = new Uint8Array(keep + nul - p);
      path.set(prevPath.subarray(0, keep));
      path.set(buf.subarray(p, nul), keep);
      next = nul + 1;
    } else {
      let len = flags & CE_NAME_MASK;
      if (len === CE_NAME_MASK) {
        const nul = buf.indexOf(0, nameStart);
        if (nul < 0 || nul >= end) throw bad(`entry ${i} at offset ${pos}: name not terminated`);
        len = nul - nameStart;
      }
      if (nameStart + len >= end || buf[nameStart + len] !== 0) throw bad(`entry ${i} at offset ${pos}: name not terminated`);
      path = buf.slice(nameStart, nameStart + len);
      // Entries are padded with 1-8 NULs to a multiple of 8 bytes.
      next = pos + ((nameStart - pos + len + 8) & ~7);
      if (next > end) throw bad(`entry ${i} at offset ${pos} runs past the end of the entries`);
    }
    const e: IndexEntry = {
      ctimeSec: view.getUint32(pos), ctimeNsec: view.getUint32(pos + 4),
      mtimeSec: view.getUint32(pos + 8), mtimeNsec: view.getUint32(pos + 12),
      dev: view.getUint32(pos + 16), ino: view.getUint32(pos + 20),
      mode: view.getUint32(pos + 24), uid: view.getUint32(pos + 28), gid: view.getUint32(pos + 32),
      size: view.getUint32(pos + 36),
      oid: buf.slice(pos + 40, pos + 40 + OID_BYTES),
      flags: flags & ~(CE_EXTENDED | CE_NAME_MASK),
      extendedFlags,
      path,
    };
    if (i > 0 && compareEntries(entries[i - 1]!, e) >= 0) {
      throw bad(`entry ${i} '${Buffer.from(path).toString('utf8')}' is out of order or duplicated`);
    }
    entries[i] = e;
    prevPath = path;
    pos = next;
  }
  let cacheTree: CacheTreeNode | null = null;
  const extensions: IndexExtension[] = [];
  while (pos + 8 <= end) {
    const signature = Buffer.from(buf.buffer, buf.byteOffset + pos, 4).toString('latin1');
    const size = view.getUint32(pos + 4);
    const dataStart = pos + 8;
    if (dataStart + size > end) throw bad(`extension ${signature} at offset ${pos} runs past the end of the file`);
    const data = buf.subarray(dataStart, dataStart + size);
    const c0 = buf[pos]!;
    if (c0 < 0x41 || c0 > 0x5a) {
      throw new GitError('worktree', 'unsupported', `${label}: index uses the '${signature}' extension, which tsgit does not understand`);
    }
    if (signature === 'TREE') cacheTree = parseCacheTree(data, label);
    else if (!LAYOUT_EXTENSIONS.has(signature)) extensions.push({ signature, data: Buffer.from(data) });
    pos = dataStart + size;
  }
  if (pos !== end) throw bad(`${end - pos} stray bytes before the checksum at offset ${pos}`);
  return { version, entries, cacheTree, extensions, timestampSec: 0, timestampNsec: 0 };
}

/** The TREE extension: pre-order nodes "<name>\0<entries> <subtrees>\n[<id>]". */
export function parseCacheTree(data: Uint8Array, label: string): CacheTreeNode {
  let pos = 0;
  const bad = (what: string): CorruptError => new CorruptError('worktree', `${label}: TREE extension: ${what} at offset ${pos}`);
  const number = (stop: number): number => {
    let neg = false, v = 0, digits = 0;
    if (data[pos] === 0x2d) { neg = true; pos++; }
    while (pos < data.length && data[pos] !== stop) {
      const c = data[pos++]!;
      if (c < 0x30 || c > 0x39) throw bad('bad number');
      v = v * 10 + c - 0x30;
      digits++;
    }
    if (!digits || pos >= data.length) throw bad('truncated number');
    pos++;
    return neg ? -v : v;
  };
  const node = (depth: number): CacheTreeNode => {
    if (depth > 4096) throw bad('nested too deeply');
    const nul = data.indexOf(0, pos);
    if (nul < 0) throw bad('name not terminated');
    const name = data.slice(pos, nul);
    pos = nul + 1;
    const entryCount = number(0x20);
    const subtrees = number(0x0a);
    if (subtrees < 0) throw bad('negative subtree count');
    let oid: Uint8Array | null = null;
    if (entryCount >= 0) {
      if (pos + OID_BYTES > data.length) throw bad('truncated id');
      oid = data.slice(pos, pos + OID_BYTES);
      pos += OID_BYTES;
    }
    const children: CacheTreeNode[] = [];
    for (let k = 0; k < subtrees; k++) children.push(node(depth + 1));
    return { name, entryCount, oid, children };
  };
  const root = node(0);
  if (pos !== data.length) throw bad('stray bytes after the root tree');
  return root;
}
