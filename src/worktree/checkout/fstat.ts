// The stat data of a file just written, with nanosecond times, as cheaply as Node allows.
// fs.fstatSync({ bigint: true }) builds a BigIntStats with four Date objects per call, a few
// microseconds that add up over 100k files; Node's fs binding answers with a Float64Array of
// seconds and nanoseconds as separate numbers, exact. Its shape is an internal detail, so it is
// used only after checking, on the first file, that it agrees with fs.fstatSync; otherwise (or
// on any other Node) the public call stands in.
import fs from 'node:fs';

/** [dev, mode, nlink, uid, gid, rdev, blksize, ino, size, blocks, atime s, ns, mtime s, ns, ctime s, ns, ...] */
type RawFstat = (fd: number, bigint: false, req: undefined, shouldNotThrow: false) => Float64Array | undefined;

const DEV = 0, UID = 3, GID = 4, INO = 7, SIZE = 8, MTIME = 12, MTIME_NS = 13, CTIME = 14, CTIME_NS = 15;
const NS = 1000000000n;

let raw: RawFstat | null | undefined;

function probe(fd: number): RawFstat | null {
  try {
    const binding = (process as unknown as { binding(name: string): { fstat?: RawFstat } }).binding('fs');
    const f = binding.fstat;
    if (typeof f !== 'function') return null;
    const a = f(fd, false, undefined, false);
    const b = fs.fstatSync(fd, { bigint: true });
    if (!(a instanceof Float64Array) || a.length < 16) return null;
    const same = BigInt(a[MTIME]!) * NS + BigInt(a[MTIME_NS]!) === b.mtimeNs && BigInt(a[CTIME]!) * NS + BigInt(a[CTIME_NS]!) === b.ctimeNs &&
      BigInt(a[INO]!) === b.ino && BigInt(a[SIZE]!) === b.size && BigInt(a[DEV]!) === b.dev && BigInt(a[UID]!) === b.uid;
    return same ? f : null;
  } catch {
    return null;
  }
}

/** Writes fd's stat fields git keeps into row `o` of `table` (see stat-table.ts for the order). */
export function fstatInto(fd: number, table: Uint32Array, o: number): void {
  if (raw === undefined) raw = probe(fd);
  const a = raw ? raw(fd, false, undefined, false) : undefined;
  if (!a) {
    const st = fs.fstatSync(fd, { bigint: true });
    storeBigInt(table, o, st);
    return;
  }
  // A Uint32Array keeps the low 32 bits of what it is given, as git truncates.
  table[o] = a[CTIME]!;
  table[o + 1] = a[CTIME_NS]!;
  table[o + 2] = a[MTIME]!;
  table[o + 3] = a[MTIME_NS]!;
  table[o + 4] = a[DEV]!;
  table[o + 5] = a[INO]!;
  table[o + 6] = a[UID]!;
  table[o + 7] = a[GID]!;
  table[o + 8] = a[SIZE]!;
}

const LOW32 = 0xffffffffn;

export function storeBigInt(table: Uint32Array, o: number, st: fs.BigIntStats): void {
  const c = st.ctimeNs, m = st.mtimeNs;
  const cs = c / NS, ms = m / NS;
  table[o] = Number(cs & LOW32);
  table[o + 1] = Number(c - cs * NS);
  table[o + 2] = Number(ms & LOW32);
  table[o + 3] = Number(m - ms * NS);
  table[o + 4] = Number(st.dev & LOW32);
  table[o + 5] = Number(st.ino & LOW32);
  table[o + 6] = Number(st.uid & LOW32);
  table[o + 7] = Number(st.gid & LOW32);
  table[o + 8] = Number(st.size & LOW32);
}
