// The patterns `git config` takes for names and values (--get-regexp, a value-pattern) are POSIX
// extended regular expressions, compiled by regcomp(REG_EXTENDED) and matched anywhere in the
// text. This turns one into a JavaScript RegExp that matches the same texts: bracket expressions
// read POSIX's way (a backslash is itself, `]` first is literal, [:class:]), `.` also matches a
// newline, glibc's \< \> \` \' and \w \W \s \S \b \B kept, a quantifier on a quantified atom
// allowed, and what regcomp refuses (a quantifier with nothing before it, a bad interval, an
// unclosed group or bracket, a trailing backslash, a reference to a group not yet opened) refused.

const CLASSES: Record<string, string> = {
  alpha: 'a-zA-Z', digit: '0-9', alnum: 'a-zA-Z0-9', upper: 'A-Z', lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v', blank: ' \\t', punct: '!-\\/:-@\\[-`{-~', print: ' -~', graph: '!-~',
  cntrl: '\\x00-\\x1f\\x7f', xdigit: '0-9A-Fa-f',
};

/** Characters with a meaning in a JavaScript pattern, outside a class. */
const escapeChar = (c: string) => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c);
/** Characters with a meaning inside a JavaScript class. */
const escapeClassChar = (c: string) => (/[\\\]^[-]/.test(c) ? `\\${c}` : c);

/** The RegExp for an ERE, or null where regcomp would fail ("invalid pattern"). */
export function posixExtended(pattern: string): RegExp | null {
  try {
    return new RegExp(translate(pattern), 's');
  } catch {
    return null;
  }
}

class Invalid extends Error {}

function translate(p: string): string {
  let out = '';
  /** Where the last atom that a quantifier may follow starts in `out`; -1 when there is none. */
  let atom = -1;
  let quantified = false;
  const open: number[] = [];
  let opened = 0;
  const addAtom = (text: string) => {
    atom = out.length;
    out += text;
    quantified = false;
  };
  const addAnchor = (text: string) => {
    out += text;
    atom = -1;
  };
  const quantify = (q: string) => {
    if (atom < 0) throw new Invalid();
    // `a**` is one quantifier after another: the first one's atom becomes a group.
    if (quantified) out = `${out.slice(0, atom)}(?:${out.slice(atom)})`;
    out += q;
    quantified = true;
  };
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    switch (c) {
      case '\\': {
        const d = p[++i];
        if (d === undefined) throw new Invalid();
        if (d >= '1' && d <= '9') {
          if (Number(d) > opened) throw new Invalid();
          addAtom(`\\${d}`);
        } else if ('wWsS'.includes(d)) addAtom(`\\${d}`);
        else if (d === 'b' || d === 'B') addAnchor(`\\${d}`);
        else if (d === '<') addAnchor('\\b(?=\\w)');
        else if (d === '>') addAnchor('\\b(?<=\\w)');
        else if (d === '`') addAnchor('^');
        else if (d === "'") addAnchor('$');
        else addAtom(escapeChar(d));
        break;
      }
      case '[': {
        const { text, end } = bracket(p, i);
        addAtom(text);
        i = end;
        break;
      }
      case '(':
        open.push(out.length);
        opened++;
        out += '(';
        atom = -1;
        break;
      case ')':
        if (open.length === 0) {
          addAtom('\\)');
          break;
        }
        out += ')';
        atom = open.pop()!;
        quantified = false;
        break;
      case '|':
        out += '|';
        atom = -1;
        break;
      case '^': case '$':
        addAnchor(c);
        break;
      case '*': case '+': case '?':
        quantify(c);
        break;
      case '{': {
        const m = /^\{([0-9]*)(,([0-9]*))?\}/.exec(p.slice(i));
        if (!m || (m[1] === '' && m[2] === undefined)) throw new Invalid();
        const min = m[1] === '' ? 0 : Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        if (min > max || max !== Infinity && max > 0x7fff) throw new Invalid();
        quantify(m[2] === undefined ? `{${min}}` : `{${min},${max === Infinity ? '' : max}}`);
        i += m[0].length - 1;
        break;
      }
      case '.':
        addAtom('.');
        break;
      default:
        addAtom(escapeChar(c));
    }
  }
  if (open.length > 0) throw new Invalid();
  return out;
}

/** A bracket expression starting at p[start] ('['): its JavaScript class and where it ends (its ']'). */
function bracket(p: string, start: number): { text: string; end: number } {
  let i = start + 1;
  let negate = false;
  if (p[i] === '^') {
    negate = true;
    i++;
  }
  let items = '';
  for (let first = true; ; first = false) {
    if (i >= p.length) throw new Invalid();
    if (p[i] === ']' && !first) return { text: `[${negate ? '^' : ''}${items}]`, end: i };
    let low: string;
    if (p[i] === '[' && ':=.'.includes(p[i + 1] ?? '')) {
      const kind = p[i + 1]!;
      const close = p.indexOf(`${kind}]`, i + 2);
      if (close < 0) throw new Invalid();
      const name = p.slice(i + 2, close);
      i = close + 2;
      if (kind === ':') {
        const cls = CLASSES[name];
        if (cls === undefined) throw new Invalid();
        items += cls;
        continue;
      }
      // [=c=] and [.c.] stand for the one character c.
      if ([...name].length !== 1) throw new Invalid();
      low = name;
    } else {
      low = p[i++]!;
    }
    if (p[i] === '-' && p[i + 1] !== undefined && p[i + 1] !== ']') {
      const high = p[i + 1]!;
      if (high < low) throw new Invalid();
      items += `${escapeClassChar(low)}-${escapeClassChar(high)}`;
      i += 2;
    } else {
      items += escapeClassChar(low);
    }
  }
}
