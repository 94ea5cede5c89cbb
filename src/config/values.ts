// git's typed readings of config values (config.c: git_parse_maybe_bool_text, git_parse_signed).
// Numbers go through strtoimax with base 0, so `0x10` is 16 and `010` is 8, followed by an
// optional k/m/g unit.

const INT32_MAX = 2n ** 31n - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** true/yes/on, false/no/off/"" (any case), a bare key is true; null when none of these. */
export function parseBoolText(value: string | null): boolean | null {
  if (value === null) return true;
  if (value === '') return false;
  const v = value.toLowerCase();
  if (v === 'true' || v === 'yes' || v === 'on') return true;
  if (v === 'false' || v === 'no' || v === 'off') return false;
  return null;
}

/** A boolean as git reads one: the words above, or any int (non-zero is true); null if neither. */
export function parseBool(value: string | null): boolean | null {
  const b = parseBoolText(value);
  if (b !== null) return b;
  const n = parseSigned(value, INT32_MAX);
  return typeof n === 'bigint' ? n !== 0n : null;
}

/**
 * An integer with an optional k, m or g suffix, within +-`max`; returns why not when it is not
 * one ('invalid unit' or 'out of range', the words git uses).
 */
export function parseSigned(value: string | null, max: bigint = SAFE_MAX): bigint | 'invalid unit' | 'out of range' {
  if (value === null || value === '') return 'invalid unit';
  const parsed = strtoimax(value);
  if (parsed === null) return 'invalid unit';
  const unit = parsed.rest.toLowerCase();
  const factor = unit === '' ? 1n : unit === 'k' ? 1024n : unit === 'm' ? 1024n ** 2n : unit === 'g' ? 1024n ** 3n : 0n;
  if (factor === 0n) return 'invalid unit';
  const n = parsed.value * factor;
  if (n > max || n < -max) return 'out of range';
  return n;
}

/** C strtoimax(s, &end, 0) without the range clamp: null when no digits were consumed. */
function strtoimax(s: string): { value: bigint; rest: string } | null {
  let i = 0;
  while (i < s.length && ' \t\n\v\f\r'.includes(s[i]!)) i++;
  let negative = false;
  if (s[i] === '+' || s[i] === '-') negative = s[i++] === '-';
  let base = 10;
  let digitsStart = i;
  if (s[i] === '0') {
    if ((s[i + 1] === 'x' || s[i + 1] === 'X') && isDigit(s[i + 2], 16)) {
      base = 16;
      i += 2;
      digitsStart = i;
    } else {
      base = 8;
    }
  }
  let value = 0n;
  while (i < s.length && isDigit(s[i], base)) value = value * BigInt(base) + BigInt(parseInt(s[i++]!, base));
  if (i === digitsStart) return null;
  return { value: negative ? -value : value, rest: s.slice(i) };
}

function isDigit(c: string | undefined, base: number): boolean {
  if (c === undefined) return false;
  const d = parseInt(c, 36);
  return !Number.isNaN(d) && d < base;
}
