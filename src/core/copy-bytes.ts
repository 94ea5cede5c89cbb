// Copying a run of bytes from one buffer into another. set() copies with memcpy, but needs a view
// of the source: a new object (~100 ns, and garbage) for every run. A short run is cheaper copied a
// byte at a time. Where the two meet depends on the runs a caller copies, so each caller says.

/** Copies src[from..to) to out[at..) (by hand when shorter than `byHandBelow`); returns the end in out. */
export function copyBytes(src: Uint8Array, from: number, to: number, out: Uint8Array, at: number, byHandBelow: number): number {
  const len = to - from;
  if (len <= 0) return at;
  if (len < byHandBelow) {
    for (let i = 0; i < len; i++) out[at + i] = src[from + i]!;
  } else {
    out.set(src.subarray(from, to), at);
  }
  return at + len;
}
