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
}

/**
 * A stretch of the text as git's parser reports it to a writer (config.c do_event): a section
 * header, an entry (from its key through the line end, continuations and comment included, up
 * to the next event), a comment, or blanks and line ends. Events tile the text from the first one
 * on; each ends where the next begins.
 */
export interface ParsedEvent {
  type: 'section' | 'entry' | 'comment' | 'whitespace';
  begin: number;
  end: number;
  /** The index into `sections` or `entries` for those types, else -1. */
  index: number;
}

export interface ParsedConfig {
  sections: ParsedSection[];
  entries: ParsedEntry[];
  events: ParsedEvent[];
}

const BOM = '\xef\xbb\xbf';

/** UTF-8 text as a binary string, and back. */
export const toBinary = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
export const fromBinary = (s: string) => Buffer.from(s, 'latin1').toString('utf8');

// git's sane_ctype: isspace is only SP, HT, LF and CR; letters and digits are ASCII only.
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isAlpha = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isKeyChar = (c: string) => isAlpha(c) || (c >= '0' && c <= '9') || c === '-';

/**
 * Parses a whole config file; `file` is only used in error messages ("bad config line 3 in file
 * <file>"), `where` in place of "file <file>" for text from elsewhere ("standard input", "blob <name>").
 */
export function parseConfig(text: string, file: string, where = `file ${file}`): ParsedConfig {
  return new Parser(text, where).parse();
}

class Parser {
  private pos: number;
  private line = 1;
  private eof = false;
  private readonly sections: ParsedSection[] = [];
  private readonly entries: ParsedEntry[] = [];
  private readonly events: ParsedEvent[] = [];

  constructor(private readonly text: string, private readonly where: string) {
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
    throw new CorruptError('config', `bad config line ${line} in ${this.where}`);
  }

  parse(): ParsedConfig {
    let comment = false;
    for (;;) {
      const c = this.next();
      if (c === '\n') {
        if (this.eof) {
          this.endEvent(this.text.length);
          return { sections: this.sections, entries: this.entries, events: this.events };
        }
        this.event('whitespace');
        comment = false;
        continue;
      }
      if (comment) continue;
      if (isSpace(c)) {
        this.event('whitespace');
        continue;
      }
      if (c === '#' || c === ';') {
        this.event('comment');
        comment = true;
        continue;
      }
      if (c === '[') {
        this.event('section', this.sections.length);
        this.sectionHeader();
        continue;
      }
      if (!isAlpha(c)) this.fail();
      this.event('entry', this.entries.length);
      this.entry(c);
    }
  }

  /** An event starting at the character just read (the '\n' of a CRLF); blanks run on as one. */
  private event(type: ParsedEvent['type'], index = -1): void {
    if (type === 'whitespace' && this.events.at(-1)?.type === 'whitespace') return;
    const begin = this.pos - 1;
    this.endEvent(begin);
    this.events.push({ type, begin, end: begin, index });
  }

  private endEvent(at: number): void {
    const last = this.events.at(-1);
    if (last) last.end = at;
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
    this.sections.push({ section: name, subsection, legacy });
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

  private entry(first: string): void {
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
    this.entries.push({ sectionIndex: this.sections.length - 1, key, value, line });
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
}
