// Colors as config values give them (git's color.c color_parse_mem): "[reset] [<fg> [<bg>]]
// [<attribute>...]", words separated by blanks; a color is a name (black, red, green, yellow,
// blue, magenta, cyan, white, each also bright-), normal, default, a number up to 255, or
// #rrggbb; an attribute is bold, dim, italic, ul, blink, reverse or strike, or one of those
// turned off (no-bold, nobold). The result is the ANSI escape sequence git prints for
// `git config --type=color`.

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
const ATTRIBUTES: Record<string, [on: number, off: number]> = {
  bold: [1, 22], dim: [2, 22], italic: [3, 23], ul: [4, 24], blink: [5, 25], reverse: [7, 27], strike: [9, 29],
};
const FOREGROUND = 30, BRIGHT_FOREGROUND = 90, BACKGROUND_OFFSET = 10;

type Color =
  | { type: 'normal' }
  | { type: 'ansi'; value: number }
  | { type: '256'; value: number }
  | { type: 'rgb'; red: number; green: number; blue: number };

/** The escape sequence for `value`, '' for a blank one; null when git says "invalid color value". */
export function parseColor(value: string): string | null {
  const words = value.split(/[ \t\n\r]+/).filter((w) => w !== '');
  if (words.length === 0) return '';
  let reset = false;
  let attributes = 0;
  let fg: Color | null = null, bg: Color | null = null;
  for (const word of words) {
    if (word.toLowerCase() === 'reset') {
      reset = true;
      continue;
    }
    const color = colorWord(word);
    if (color) {
      if (!fg) fg = color;
      else if (!bg) bg = color;
      else return null;
      continue;
    }
    const attribute = attributeWord(word);
    if (attribute < 0) return null;
    attributes |= 1 << attribute;
  }
  // A normal color takes its place but says nothing (git's color_empty).
  const colors = [fg && fg.type !== 'normal' ? colorCode(fg, 0) : null, bg && bg.type !== 'normal' ? colorCode(bg, BACKGROUND_OFFSET) : null];
  const codes: string[] = [];
  for (let i = 0; i < 32; i++) if (attributes & (1 << i)) codes.push(String(i));
  codes.push(...colors.filter((c) => c !== null));
  if (!reset && codes.length === 0) return '';
  return `\x1b[${(reset ? [''] : []).concat(codes).join(';')}m`;
}

/** git's parse_color: normal, #rrggbb, a name (parse_ansi_color), or a number from -1 to 255. */
function colorWord(word: string): Color | null {
  const lower = word.toLowerCase();
  if (lower === 'normal') return { type: 'normal' };
  if (/^#[0-9a-fA-F]{6}$/.test(word)) {
    const hex = (at: number) => parseInt(word.slice(at, at + 2), 16);
    return { type: 'rgb', red: hex(1), green: hex(3), blue: hex(5) };
  }
  if (lower === 'default') return { type: 'ansi', value: 9 + FOREGROUND };
  const bright = lower.startsWith('bright');
  const index = NAMES.indexOf(bright ? lower.slice(6) : lower);
  if (index >= 0) return { type: 'ansi', value: index + (bright ? BRIGHT_FOREGROUND : FOREGROUND) };
  // strtol's digits, and nothing after them.
  if (!/^[+-]?[0-9]+$/.test(word)) return null;
  const n = Number(word);
  if (n < -1 || n > 255) return null;
  if (n < 0) return { type: 'normal' };
  if (n < 8) return { type: 'ansi', value: n + FOREGROUND };
  if (n < 16) return { type: 'ansi', value: n - 8 + BRIGHT_FOREGROUND };
  return { type: '256', value: n };
}

/** git's parse_attr: the SGR number of an attribute word, its "no" form the number turning it off; -1 if none. */
function attributeWord(word: string): number {
  let name = word;
  let negate = false;
  if (name.startsWith('no')) {
    name = name.slice(name.startsWith('no-') ? 3 : 2);
    negate = true;
  }
  const attribute = ATTRIBUTES[name];
  if (!attribute) return -1;
  return negate ? attribute[1] : attribute[0];
}

/** git's color_output. */
function colorCode(c: Exclude<Color, { type: 'normal' }>, offset: number): string {
  switch (c.type) {
    case 'ansi': return String(c.value + offset);
    case '256': return `${offset ? '4' : '3'}8;5;${c.value}`;
    case 'rgb': return `${offset ? '4' : '3'}8;2;${c.red};${c.green};${c.blue}`;
  }
}
