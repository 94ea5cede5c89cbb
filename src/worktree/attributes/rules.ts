// Parsing a gitattributes file into rules, as git's attr.c parse_attr_line does: a pattern (or a
// quoted one, or `[attr]<name>` defining a macro) followed by states `name`, `-name`, `!name` and
// `name=value`. Patterns follow gitignore syntax without negation: no '/' means "this basename at
// any depth", a leading '/' anchors to the file's directory, a trailing '/' only matches
// directories (so never a file being checked out).
import { parsePathPattern, type PathPattern } from '../path-pattern.js';

/** An attribute's state in a rule or result: set, unset (`-`), value, or explicitly unspecified (`!`). */
export type AttrValue = true | false | string | null;

export interface AttrState {
  name: string;
  value: AttrValue;
}

export interface AttrRule extends PathPattern {
  states: AttrState[];
}

export interface AttrMacro {
  name: string;
  states: AttrState[];
}

export interface ParsedAttributes {
  rules: AttrRule[];
  macros: AttrMacro[];
  /**
   * What git prints on stderr as it reads the file (attr.c), one message per skipped line, in git's
   * words (a message may hold two lines): the file is read once per checkout, so these are printed
   * once each.
   */
  warnings: string[];
}

/** git's ATTR_MAX_LINE_LENGTH: longer lines are ignored with a warning. */
const MAX_LINE = 2048;
const BLANK = new Set([0x20, 0x09, 0x0d, 0x0a]);
const MACRO_PREFIX = '[attr]';

function isValidName(s: string): boolean {
  return /^[A-Za-z0-9_.][-A-Za-z0-9_.]*$/.test(s);
}

/**
 * git's unquote_c_style of the quoted string starting at `start`: its bytes and where it ends;
 * null if the quoting is malformed.
 */
export function unquoteCStyle(line: Uint8Array, start: number): { bytes: Uint8Array; end: number } | null {
  const out: number[] = [];
  let i = start + 1;
  const ESC: Record<number, number> = { 0x61: 7, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9, 0x76: 11, 0x5c: 0x5c, 0x22: 0x22 };
  while (i < line.length) {
    const c = line[i++]!;
    if (c === 0x22) return { bytes: Uint8Array.from(out), end: i };
    if (c !== 0x5c) { out.push(c); continue; }
    if (i >= line.length) return null;
    const e = line[i++]!;
    if (ESC[e] !== undefined) { out.push(ESC[e]!); continue; }
    if (e >= 0x30 && e <= 0x33) {
      const d1 = line[i], d2 = line[i + 1];
      if (d1 === undefined || d2 === undefined || d1 < 0x30 || d1 > 0x37 || d2 < 0x30 || d2 > 0x37) return null;
      out.push(((e - 0x30) << 6) | ((d1 - 0x30) << 3) | (d2 - 0x30));
      i += 2;
      continue;
    }
    return null;
  }
  return null;
}

function parseStates(text: string, where: string, warnings: string[]): AttrState[] | null {
  const states: AttrState[] = [];
  for (const token of text.split(/[ \t\r\n]+/)) {
    if (!token) continue;
    const eq = token.indexOf('=');
    let name = eq >= 0 ? token.slice(0, eq) : token;
    let value: AttrValue;
    if (name.startsWith('-') || name.startsWith('!')) {
      value = name[0] === '-' ? false : null;
      name = name.slice(1);
    } else {
      value = eq >= 0 ? token.slice(eq + 1) : true;
    }
    if (!isValidName(name)) {
      warnings.push(invalidName(name, where));
      return null;
    }
    states.push({ name, value });
  }
  return states;
}

/** git's report_invalid_attr. */
function invalidName(name: string, where: string): string {
  return `${name} is not a valid attribute name: ${where}`;
}

/** git's warning for a pattern starting with '!' (its parse_path_pattern marks it negative). */
const NEGATIVE_PATTERN = "warning: Negative patterns are ignored in git attributes\nUse '\\!' for literal leading exclamation.";

/**
 * Parses one attributes file. `macrosAllowed` is true only for the top-level files (root
 * .gitattributes, info/attributes, global and system files), as in git.
 */
export function parseAttributes(content: Uint8Array, source: string, macrosAllowed: boolean): ParsedAttributes {
  const result: ParsedAttributes = { rules: [], macros: [], warnings: [] };
  let pos = 0;
  // A UTF-8 byte order mark on the first line is skipped.
  if (content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf) pos = 3;
  for (let lineNo = 1; pos < content.length; lineNo++) {
    let end = content.indexOf(0x0a, pos);
    if (end < 0) end = content.length;
    const line = content.subarray(pos, end);
    pos = end + 1;
    const where = `${source}:${lineNo}`;
    let i = 0;
    while (i < line.length && BLANK.has(line[i]!)) i++;
    if (i >= line.length || line[i] === 0x23) continue;
    if (line.length >= MAX_LINE) {
      result.warnings.push(`warning: ignoring overly long attributes line ${lineNo}`);
      continue;
    }
    let name: Uint8Array;
    let statesStart: number;
    const quoted = line[i] === 0x22 ? unquoteCStyle(line, i) : null;
    if (quoted) {
      name = quoted.bytes;
      statesStart = quoted.end;
    } else {
      let j = i;
      while (j < line.length && !BLANK.has(line[j]!)) j++;
      name = line.subarray(i, j);
      statesStart = j;
    }
    const statesText = Buffer.from(line.subarray(statesStart)).toString('utf8');
    const nameText = Buffer.from(name).toString('latin1');
    if (nameText.length > MACRO_PREFIX.length && nameText.startsWith(MACRO_PREFIX)) {
      if (!macrosAllowed) {
        // git prints the pattern as it holds it: unquoted, or the rest of the line (states, and
        // a CR when the file has CRLF endings, included).
        const shown = Buffer.from(quoted ? name : line.subarray(i)).toString('utf8');
        result.warnings.push(`${shown} not allowed: ${where}`);
        continue;
      }
      // "[attr]name": the token itself must be longer than the prefix ("[attr] x" is a pattern).
      const macroName = /^[^ \t\r\n]*/.exec(nameText.slice(MACRO_PREFIX.length))![0];
      if (!isValidName(macroName)) {
        result.warnings.push(invalidName(macroName, where));
        continue;
      }
      const states = parseStates(statesText, where, result.warnings);
      if (states) result.macros.push({ name: macroName, states });
      continue;
    }
    // git validates the states before it looks at the pattern: a line with both faults gets the
    // invalid name's message only.
    const states = parseStates(statesText, where, result.warnings);
    if (!states) continue;
    if (name[0] === 0x21) {
      result.warnings.push(NEGATIVE_PATTERN);
      continue;
    }
    result.rules.push({ ...parsePathPattern(name), states });
  }
  return result;
}
