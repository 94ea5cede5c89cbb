// The "<type> <size>\0" header an object's id is hashed with, written in front of a delta's
// result in the same buffer so that one SHA-1 call covers both (without a string per object).

const TYPE_PREFIX = ['', 'commit ', 'tree ', 'blob ', 'tag '].map((p) => Buffer.from(p, 'latin1'));

/** Bytes of the header of an object of `type` (1-4) and `size` bytes. */
export function objectHeaderLength(type: number, size: number): number {
  let digits = 1;
  for (let v = size; v >= 10; v = Math.floor(v / 10)) digits++;
  return TYPE_PREFIX[type]!.length + digits + 1;
}

/** Writes the header at out[at..]; `length` is objectHeaderLength's answer for the same object. */
export function putObjectHeader(out: Buffer, at: number, type: number, size: number, length: number): void {
  const name = TYPE_PREFIX[type]!;
  name.copy(out, at);
  for (let k = at + length - 2, v = size; k >= at + name.length; k--, v = Math.floor(v / 10)) out[k] = 0x30 + (v % 10);
  out[at + length - 1] = 0;
}
