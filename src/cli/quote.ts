// git's quote_c_style, used for paths in ls-tree and friends when core.quotePath is on (the
// default): names with control characters, '"', '\\' or bytes >= 0x80 are printed in double quotes
// with C escapes and octal for the rest.
const ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };

function needsQuote(b: number, quotePath: boolean): boolean {
  return b < 0x20 || b === 0x22 || b === 0x5c || b === 0x7f || (quotePath && b >= 0x80);
}

export function quoteCStyle(name: Uint8Array, quotePath = true): Buffer {
  let needs = false;
  for (let i = 0; i < name.length; i++) if (needsQuote(name[i]!, quotePath)) { needs = true; break; }
  if (!needs) return Buffer.from(name.buffer, name.byteOffset, name.length);
  let s = '"';
  for (let i = 0; i < name.length; i++) {
    const b = name[i]!;
    if (!needsQuote(b, quotePath)) s += String.fromCharCode(b);
    else s += ESCAPES[b] ?? '\\' + b.toString(8).padStart(3, '0');
  }
  return Buffer.from(s + '"', 'latin1');
}
