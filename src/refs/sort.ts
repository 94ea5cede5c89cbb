// git sorts refs by the bytes of their UTF-8 names. JavaScript compares UTF-16 code units, which
// agrees except that characters above U+FFFF (surrogate pairs, 0xD800-0xDFFF) must sort after
// U+E000-U+FFFF; shifting the two ranges past each other fixes that without encoding anything.

function rank(unit: number): number {
  if (unit < 0xd800) return unit;
  if (unit >= 0xe000) return unit - 0x800;
  return unit + 0x2000;
}

export function compareRefNames(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}
