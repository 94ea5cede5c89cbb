// A port of git's config parser (config.c: git_parse_source, get_base_var, get_extended_base_var,
// get_value, parse_value), so tsgit accepts and refuses exactly the files git does.
//
// The text is a "binary string": one char per byte (latin1), so that byte offsets are string
// offsets and an edit can splice the file without re-encoding the lines it does not touch. Names
// and values stay in that form here; Config converts them to UTF-8 at its public edge.
import { CorruptError } from '../core/errors.js';

export interface ParsedSection {
  /** Lower-cased section name, e.g. `remote`. For the legacy `[a.b]` form this is `a`. */
  section: string;
  /** Subsection exactly as written (legacy `[a.b]` lower-cases it, as git does), or null. */
  subsection: string | null;
  /** True for `[section.subsection]`, whose subsection compares case-insensitively on write. */
  legacy: boolean;
  /** Offset just past the line holding the header (after its '\n', or the end of the text). */
  lineEnd: number;
}

export interface ParsedEntry {
  /** Index into the `sections` array of the section this key belongs to, or -1 before any header. */
  sectionIndex: number;
  /** Lower-cased key name. */
  key: string;
  /** The value with quotes and escapes resolved; null for a bare `key` (boolean true). */
  value: string | null;
  /** 1-based line of the key. */
  line: number;
  /** Offset of the first character of the key. */
  keyStart: number;
  /** True when only blanks precede the key on its line, so the whole line belongs to it. */
  ownsLine: boolean;
  /** Offset of the beginning of the key's line. */
  lineStart: number;
  /** Offset of the '\n' ending the entry (continuations included), or the text length at EOF. */
  end: number;
}

export interface ParsedConfig {
  sections: ParsedSection[];
  entries: ParsedEntry[];
}

const BOM = '\xef\xbb\xbf';

// git's sane_ctype: isspace is only SP, HT, LF and CR; letters and digits are ASCII only.
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isAlpha = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isKeyChar = (c: string) => isAlpha(c) || (c >= '0' && c <= '9') || c === '-';

/** Parses a whole config file; `file` is only used in error messages. */
export function parseConfig(text: string, file: string): ParsedConfig {
  return new Parser(text, file).parse();
}

class Parser {
  private pos: number;
  private line = 1;
  private eof = false;
  private readonly sections: ParsedSection[] = [];
  private readonly entries: ParsedEntry[] = [];

  constructor(private readonly text: string, private readonly file: string) {
    this.pos = text.startsWith(BOM) ? BOM.length : 0;
  }

  /** git's get_next_char: CRLF reads as LF, and the end of the text reads as LF with eof set. */
  private next(): string {
    if (this.pos >= this.text.length) {
      // git counts a line on every read past the end; error line numbers depend on it.
      this.line++;
      this.eof = true;
      return '\n';
    }
    let c = this.text[this.pos++]!;
    if (c === '\r' && this.text[this.pos] === '\n') {
      c = '\n';
      this.pos++;
    }
    if (c === '\n') this.line++;
    return c;
  }

  // git reports the line it has reached, stepping back one where it already read the '\n' that
  // ended a broken line; callers pass `this.line - 1` in those places.
  private fail(line = this.line): never {
    throw new CorruptError('config', `bad config line ${line} in file ${this.file}`);
  }

  parse(): ParsedConfig {
    let comment = false;
    for (;;) {
      const c = this.next();
      if (c === '\n') {
        if (this.eof) return { sections: this.sections, entries: this.entries };
        comment = false;
        continue;
      }
      if (comment || isSpace(c)) continue;
      if (c === '#' || c === ';') {
        comment = true;
        continue;
      }
      if (c === '[') {
        this.sectionHeader();
        continue;
      }
      if (!isAlpha(c)) this.fail();
      this.entry(this.pos - 1, c);
    }
  }

  private sectionHeader(): void {
    let name = '';
    let subsection: string | null = null;
    for (;;) {
      const c = this.next();
      if (this.eof) this.fail();
      if (c === ']') break;
      if (isSpace(c)) {
        subsection = this.quotedSubsection(c);
        break;
      }
      if (!isKeyChar(c) && c !== '.') this.fail();
      name += c.toLowerCase();
    }
    let legacy = false;
    if (subsection === null) {
      if (name.length === 0) this.fail();
      const dot = name.indexOf('.');
      if (dot >= 0) {
        legacy = true;
        subsection = name.slice(dot + 1);
        name = name.slice(0, dot);
      }
    }
    this.sections.push({ section: name, subsection, legacy, lineEnd: this.lineEndFrom(this.pos) });
  }

  /** `[name "sub"]`: blanks, then a quoted subsection in which backslash escapes any character. */
  private quotedSubsection(first: string): string {
    let c = first;
    while (isSpace(c)) {
      if (c === '\n') this.fail(this.line - 1);
      c = this.next();
    }
    if (c !== '"') this.fail();
    let sub = '';
    for (;;) {
      c = this.next();
      if (c === '\n') this.fail(this.line - 1);
      if (c === '"') break;
      if (c === '\\') {
        c = this.next();
        if (c === '\n') this.fail(this.line - 1);
      }
      sub += c;
    }
    if (this.next() !== ']') this.fail();
    return sub;
  }

  private entry(keyStart: number, first: string): void {
    const line = this.line;
    let key = first.toLowerCase();
    let c: string;
    for (;;) {
      c = this.next();
      if (this.eof || !isKeyChar(c)) break;
      key += c.toLowerCase();
    }
    while (c === ' ' || c === '\t') c = this.next();
    let value: string | null = null;
    if (c !== '\n') {
      if (c !== '=') this.fail();
      value = this.value();
    }
    // The entry ends at the '\n' just consumed (pos - 1), or at the end of the text.
    const end = this.eof ? this.text.length : this.pos - (this.text[this.pos - 2] === '\r' ? 2 : 1);
    const lineStart = this.text.lastIndexOf('\n', keyStart - 1) + 1;
    const ownsLine = /^[ \t\r]*$/.test(this.text.slice(lineStart, keyStart).replace(BOM, ''));
    this.entries.push({ sectionIndex: this.sections.length - 1, key, value, line, keyStart, ownsLine, lineStart, end });
  }

  /** git's parse_value: quotes toggle, blanks outside quotes collapse to their count of spaces. */
  private value(): string {
    let quote = false, comment = false, spaces = 0;
    let out = '';
    for (;;) {
      let c = this.next();
      if (c === '\n') {
        if (quote) this.fail(this.line - 1);
        return out;
      }
      if (comment) continue;
      if (isSpace(c) && !quote) {
        if (out.length > 0) spaces++;
        continue;
      }
      if (!quote && (c === ';' || c === '#')) {
        comment = true;
        continue;
      }
      if (spaces > 0) {
        out += ' '.repeat(spaces);
        spaces = 0;
      }
      if (c === '\\') {
        c = this.next();
        switch (c) {
          case '\n': continue;
          case 't': c = '\t'; break;
          case 'b': c = '\b'; break;
          case 'n': c = '\n'; break;
          case '\\': case '"': break;
          default: this.fail();
        }
        out += c;
        continue;
      }
      if (c === '"') {
        quote = !quote;
        continue;
      }
      out += c;
    }
  }

  private lineEndFrom(pos: number): number {
    const nl = this.text.indexOf('\n', pos);
    return nl < 0 ? this.text.length : nl + 1;
  }
}
